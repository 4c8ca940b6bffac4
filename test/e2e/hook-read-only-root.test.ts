// An agent hook on a read-only memory root: the capture it hands to a detached process keeps its output beside the
// hook log, in the root's configured state folder under the runtime home, and the root itself is not written.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config.js';
import type { HookLogEntry } from '../../src/services/ports.js';
import { eventually } from '../support/eventually.js';
import { MEM_BIN, cleanEnv } from '../support/harness.js';
import { snapshot } from '../support/sync-fixture.js';
import { tempRoot } from '../support/temp-root.js';

/** `mem hook …` in a private mount namespace where `root` is mounted read-only (as root, permissions alone would not stop a write). */
function hookOnReadOnlyRoot(root: string, args: string[], payload: unknown): Promise<number> {
  const script = 'mount --bind -o ro "$1" "$1" && shift && exec "$@"';
  return new Promise((resolve) => {
    const child = spawn('unshare', ['-m', 'sh', '-c', script, 'sh', root, process.execPath, MEM_BIN, 'hook', ...args], { env: cleanEnv() });
    child.on('close', (code) => resolve(code ?? 1));
    child.stdin.end(JSON.stringify(payload));
  });
}

describe('agent hooks on a read-only memory root', () => {
  let project: string;
  let root: string;
  let state: string;

  beforeAll(async () => {
    project = await tempRoot({ 'memories/ann/semantic/tea.md': 'Ann drinks sencha every morning.\n' }, 'memdir-e2e-hook-ro-');
    // A project memory belongs to a git work tree: elsewhere the hooks would use personal memory alone.
    execFileSync('git', ['init', '-q', project]);
    root = join(project, 'memories');
    state = join(loadConfig(cleanEnv(), { root }).runtimeHome, 'roots', createHash('sha256').update(root).digest('hex').slice(0, 16));
  });
  afterAll(async () => {
    await rm(state, { recursive: true, force: true });
    await rm(project, { recursive: true, force: true });
  });

  it('the detached capture writes its output and its log entry to the state folder under the runtime home', async () => {
    const before = await snapshot(root);
    // No transcript: the worker stops before opening the index (no server starts) and logs why.
    const code = await hookOnReadOnlyRoot(root, ['claude-code', 'stop', '--user', 'ann'], { cwd: project, session_id: 'ro-1' });
    expect(code).toBe(0);
    const log = join(state, 'hooks', 'log.jsonl');
    const entry = await eventually(
      async () =>
        (await readFile(log, 'utf8').catch(() => ''))
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as HookLogEntry)
          .find((e) => e.event === 'stop'),
      `the capture's log entry in ${log}`,
      60_000,
      250,
    );
    // Logged by the worker (about the payload), not by the hook failing to make `<root>/.mem/hooks`.
    expect(entry).toMatchObject({ agent: 'claude-code', session: 'ro-1', ok: false });
    expect(entry.error).toBe('the stop hook input has no transcript_path');
    expect(existsSync(join(state, 'hooks', 'capture.out'))).toBe(true);
    expect(await snapshot(root)).toEqual(before);
    expect(existsSync(join(root, '.mem'))).toBe(false);
  });
});
