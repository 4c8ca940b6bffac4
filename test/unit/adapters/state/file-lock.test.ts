// Covers FileLock's recovery of abandoned locks: what a killed holder leaves is taken over at once; a live
// holder, or an owner record of an earlier lock folder, is waited for.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { FileLock } from '../../../../src/adapters/state/file-lock.js';
import { LockTimeoutError } from '../../../../src/errors.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function lockFolder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'memdir-lock-'));
  dirs.push(dir);
  return dir;
}

/** A pid that surely ran and is gone: a child that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

/** Leaves what a holder leaves when killed: the lock folder and its owner record. */
async function leaveLock(dir: string, pid: number, instanceOverride?: string): Promise<void> {
  await mkdir(join(dir, 'write.lock'));
  const st = await stat(join(dir, 'write.lock'));
  const instance = instanceOverride ?? `${st.ino}:${st.birthtimeMs}`;
  await writeFile(join(dir, 'write.owner'), JSON.stringify({ pid, host: hostname(), instance }));
}

describe('FileLock', () => {
  it('runs callers one at a time and leaves nothing behind', async () => {
    const dir = await lockFolder();
    const lock = new FileLock(dir, 'write', 5_000);
    const order: string[] = [];
    await Promise.all(
      [1, 2, 3].map((n) =>
        lock.run(async () => {
          order.push(`start ${n}`);
          await new Promise((r) => setImmediate(r));
          order.push(`end ${n}`);
        }),
      ),
    );
    expect(order).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
    expect(existsSync(join(dir, 'write.lock'))).toBe(false);
    expect(existsSync(join(dir, 'write.owner'))).toBe(false);
  });

  it('takes over at once a lock whose holder process is gone (killed), instead of waiting 30 s', async () => {
    const dir = await lockFolder();
    await leaveLock(dir, deadPid());
    // A 3 s wait would time out if the abandoned lock had to become stale first.
    const result = await new FileLock(dir, 'write', 3_000).run(async () => 'ran');
    expect(result).toBe('ran');
    expect(existsSync(join(dir, 'write.lock'))).toBe(false);
  });

  it('waits for a holder that is alive', async () => {
    const dir = await lockFolder();
    await leaveLock(dir, process.pid);
    await expect(new FileLock(dir, 'write', 800).run(async () => 'ran')).rejects.toBeInstanceOf(LockTimeoutError);
    expect(existsSync(join(dir, 'write.lock'))).toBe(true);
  });

  it('ignores an owner record left by an earlier lock folder (the holder has not written its own yet)', async () => {
    const dir = await lockFolder();
    await leaveLock(dir, deadPid(), '1:2');
    await expect(new FileLock(dir, 'write', 800).run(async () => 'ran')).rejects.toBeInstanceOf(LockTimeoutError);
    expect(existsSync(join(dir, 'write.lock'))).toBe(true);
  });

  it('treats an owner record being written (not yet whole) as a live holder', async () => {
    const dir = await lockFolder();
    await mkdir(join(dir, 'write.lock'));
    await writeFile(join(dir, 'write.owner'), '{"pid": ');
    await expect(new FileLock(dir, 'write', 800).run(async () => 'ran')).rejects.toBeInstanceOf(LockTimeoutError);
  });

  it('still removes a lock that nobody refreshed for 30 s, owner or not', async () => {
    const dir = await lockFolder();
    await mkdir(join(dir, 'write.lock'));
    const old = Date.now() / 1000 - 120;
    await utimes(join(dir, 'write.lock'), old, old);
    expect(await new FileLock(dir, 'write', 3_000).run(async () => 'ran')).toBe('ran');
  });
});
