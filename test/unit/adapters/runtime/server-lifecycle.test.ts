// The shared servers' stop decision (Python, prepended to every launcher): a server that finds no reason to run
// writes its stopping marker before it looks again, and takes the marker back if a memdir process came meanwhile.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { afterEach, describe, expect, it } from 'vitest';

import { IDLE_ENV, LEASES_ENV, ROOTS_ENV, SERVER_LIFECYCLE, WATCH_ENV, stoppingMarker } from '../../../../src/adapters/runtime/owner-only.js';

const run = promisify(execFile);

/** Runs the lifecycle code (its watcher thread sleeps 5 s first, longer than this script) and then `script`. */
async function lifecycle(home: string, script: string): Promise<{ out: string; files: string[] }> {
  const env = {
    ...process.env,
    [WATCH_ENV]: join(home, 'servers'),
    [ROOTS_ENV]: join(home, 'servers', 'roots'),
    [LEASES_ENV]: join(home, 'servers', 'leases'),
    [IDLE_ENV]: '0',
  };
  const { stdout } = await run('python3', ['-c', `${SERVER_LIFECYCLE}\nimport os\nprint(os.getpid())\n${script}`], { env });
  return { out: stdout, files: await readdir(join(home, 'servers')) };
}

describe('server lifecycle: the stop decision', () => {
  let home = '';
  afterEach(async () => home && rm(home, { recursive: true, force: true }));

  it('no root left to serve: the server decides to stop and leaves its marker for newcomers', async () => {
    home = await mkdtemp(join(tmpdir(), 'memdir-lifecycle-'));
    await mkdir(join(home, 'servers', 'roots'), { recursive: true });
    const { out, files } = await lifecycle(home, 'print(_decided())');
    const [pid, why] = out.trim().split('\n');
    expect(why).toBe('no root left to serve');
    expect(files).toContain(stoppingMarker(Number(pid)));
  });

  it('a reason that is gone on the second look (a process registered meanwhile): it serves on, marker removed', async () => {
    home = await mkdtemp(join(tmpdir(), 'memdir-lifecycle-'));
    await mkdir(join(home, 'servers', 'roots'), { recursive: true });
    // The first look finds no root; the newcomer registers before the second.
    const script = ['looks = iter(["no root left to serve", None])', '_why_stop = lambda: next(looks)', 'print(_decided())'].join('\n');
    const { out, files } = await lifecycle(home, script);
    expect(out.trim().split('\n')[1]).toBe('None');
    expect(files.filter((f) => f.startsWith('stopping-'))).toEqual([]);
  });

  it('nothing to stop for: no marker is written', async () => {
    home = await mkdtemp(join(tmpdir(), 'memdir-lifecycle-'));
    await mkdir(join(home, 'servers'), { recursive: true }); // no roots folder: a server started outside the registry
    const { out, files } = await lifecycle(home, 'print(_decided())');
    expect(out.trim().split('\n')[1]).toBe('None');
    expect(files.filter((f) => f.startsWith('stopping-'))).toEqual([]);
  });
});
