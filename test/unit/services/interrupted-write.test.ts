// Covers interrupted-write.ts: a write killed before its commit is rolled back by the next writer (files as they
// were, index in step), one killed after its commit is kept, and an add after a kill leaves one active memory per key.
import { readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { addMemory } from '../../../src/services/add.js';
import { beginWrite, settleInterruptedWrite } from '../../../src/services/core/interrupted-write.js';
import { syncIndex } from '../../../src/services/core/sync.js';
import { tempRoot } from '../../support/temp-root.js';
import { unitDeps } from '../../support/unit-deps.js';

const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((r) => rm(r, { recursive: true, force: true })));
});

async function setup() {
  const root = await tempRoot({ 'alice/semantic/old.md': '---\nkey: residence\n---\nAlice lives in Rome.\n' });
  roots.push(root);
  const deps = unitDeps(root);
  await syncIndex(deps);
  return { root, deps };
}

describe('settleInterruptedWrite', () => {
  it('does nothing without a pending write', async () => {
    const { deps } = await setup();
    expect(await settleInterruptedWrite(deps)).toBeNull();
  });

  it('rolls back a write killed before its commit: new files gone, changed ones restored, index in step', async () => {
    const { root, deps } = await setup();
    const before = await readFile(join(root, 'alice/semantic/old.md'), 'utf8');
    await beginWrite(deps, 'SUPERSEDE', ['alice/semantic/new.md', 'alice/semantic/old.md'], deps.now());
    await deps.files.write('alice/semantic/new.md', '---\nkey: residence\n---\nAlice lives in Paris.\n');
    await deps.files.write('alice/semantic/old.md', '---\nkey: residence\nstatus: superseded\n---\nAlice lives in Rome.\n');
    await syncIndex(deps); // a sync of someone else's may even have indexed the orphan

    const settled = await settleInterruptedWrite(deps);
    expect(settled).toMatchObject({ action: 'SUPERSEDE', outcome: 'rolled-back' });
    expect(existsSync(join(root, 'alice/semantic/new.md'))).toBe(false);
    expect(await readFile(join(root, 'alice/semantic/old.md'), 'utf8')).toBe(before);
    expect([...((await deps.manifest.load()) ?? new Map()).keys()]).toEqual(['alice/semantic/old.md']);
    expect(await deps.journal.pending()).toBeNull();
  });

  it('keeps a write that was committed before the kill', async () => {
    const { root, deps } = await setup();
    await beginWrite(deps, 'ADD', ['alice/semantic/new.md'], deps.now());
    await deps.files.write('alice/semantic/new.md', 'Alice plays the cello.\n');
    await deps.audit.commit(['alice/semantic/new.md'], 'memdir: ADD');
    expect(await settleInterruptedWrite(deps)).toMatchObject({ outcome: 'committed' });
    expect(existsSync(join(root, 'alice/semantic/new.md'))).toBe(true);
    expect((await deps.manifest.load())?.has('alice/semantic/new.md')).toBe(true);
  });

  it('the add after a killed add settles it first: one active memory for the key', async () => {
    const { root, deps } = await setup();
    await beginWrite(deps, 'ADD', ['alice/semantic/orphan.md'], deps.now());
    await deps.files.write('alice/semantic/orphan.md', '---\nkey: residence\n---\nAlice lives in Oslo.\n');
    const added = await addMemory(deps, { text: 'Alice lives in Lisbon.', user: 'alice', key: 'residence' });
    expect(added).toMatchObject({ action: 'SUPERSEDE', supersedes: 'alice/semantic/old' });
    expect(existsSync(join(root, 'alice/semantic/orphan.md'))).toBe(false);
    const active = [...((await deps.manifest.load()) ?? new Map()).values()].filter((e) => e.key === 'residence' && e.status === 'active');
    expect(active.map((e) => e.memoryId)).toEqual([added.id]);
  });
});
