// A recorded server pid is only the server while the kernel's start time matches: a process that later took the pid is not.
import { spawn } from 'node:child_process';

import { describe, expect, it } from 'vitest';

import { isSameProcess, processStartTime } from '../../../../src/adapters/runtime/process-identity.js';

const linux = process.platform === 'linux';

describe('process identity', () => {
  it.runIf(linux)('a live process is the one recorded with its own start time, not with another', () => {
    const mine = processStartTime(process.pid);
    expect(mine).toMatch(/^\d+$/);
    expect(isSameProcess(process.pid, mine)).toBe(true);
    expect(isSameProcess(process.pid, String(Number(mine) + 1))).toBe(false);
  });

  it('a record without a start time (written before they were kept) falls back to the pid being alive', () => {
    expect(isSameProcess(process.pid, undefined)).toBe(true);
  });

  it('an exited process is not running, whatever was recorded', async () => {
    const child = spawn(process.execPath, ['-e', '']);
    const pid = child.pid!;
    const start = processStartTime(pid);
    await new Promise((resolve) => child.on('exit', resolve));
    expect(isSameProcess(pid, start)).toBe(false);
  });
});
