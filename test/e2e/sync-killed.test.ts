// A `mem sync` killed in the middle of its merge (by a git hook that runs while the merge is under way), with real
// git, the real `bin/mem`, Milvus Lite and the model: the repository is left mid-merge; the next command puts it
// back as the sync found it, and the next sync then does the whole exchange: no conflict markers, nothing lost,
// both doctors clean.
import { existsSync } from 'node:fs';
import { chmod, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { gitIn, machines, type Machines } from '../support/git-clones.js';

describe('a mem sync killed mid-merge', () => {
  let m: Machines;

  beforeAll(async () => {
    m = await machines(['laptop', 'desk'], { user: 'ann', text: 'Ann lives in Lyon with her two cats' });
    expect((await m.mem('laptop', ['add', 'Ann swims in the lake every morning in summer', '-u', 'ann'])).code).toBe(0);
    expect((await m.mem('laptop', ['sync', '--json'])).code).toBe(0);
    // The desk has a commit of its own and a file left uncommitted: the sync commits it, then merges.
    expect((await m.mem('desk', ['add', 'Ann plays the cello in an amateur orchestra', '-u', 'ann'])).code).toBe(0);
    await writeFile(join(m.roots.desk!, 'ann/semantic/by-hand.md'), '---\nid: by-hand\n---\nAnn bakes sourdough bread on Saturdays.\n');
  });
  afterAll(async () => {
    await m?.dispose();
  });

  it('is put back by the next command, and the next sync completes it', async () => {
    const desk = m.roots.desk!;
    const before = m.gitState('desk');
    // Runs inside `git merge`, before the merge commit, and kills the `mem` that started the merge (git's parent).
    // After the hook git says "Not committing merge" and only then records the merge under way (MERGE_HEAD), on
    // output that only that `mem` reads (Unix sockets, which no other process can open through /proc): a `mem` killed
    // at once leaves no reader, and git dies of SIGPIPE before MERGE_HEAD or not, as the scheduler has it. So the hook
    // stops `mem` (it runs no further, yet its end of the sockets stays open) and a background child kills it once
    // git has exited: `mem` dies with its merge under way, and git has always had its say.
    const hook = join(desk, '.git', 'hooks', 'pre-merge-commit');
    await writeFile(
      hook,
      [
        '#!/bin/sh',
        'git_pid=$PPID',
        'mem_pid=$(ps -o ppid= -p "$git_pid" | tr -d " ")',
        'kill -STOP "$mem_pid"',
        '(',
        // Until git is gone, or is a zombie its stopped parent cannot reap; bounded, so that a git that hangs fails
        // the test below rather than leaving `mem` stopped for good.
        '  i=0',
        '  while [ $i -lt 1200 ] && [ -e /proc/$git_pid ] && [ "$(cut -d" " -f3 /proc/$git_pid/stat 2>/dev/null)" != Z ]; do',
        '    sleep 0.05; i=$((i + 1))',
        '  done',
        '  kill -9 "$mem_pid"',
        ') </dev/null >/dev/null 2>&1 &',
        'exit 1',
        '',
      ].join('\n'),
    );
    await chmod(hook, 0o755);
    const killed = await m.mem('desk', ['sync', '--json']);
    await rm(hook);
    expect(killed.code).not.toBe(0);
    expect(killed.stdout).toBe('');
    // Killed mid-merge, after git had finished: a merge under way, and the file left uncommitted in the sync's commit.
    expect(existsSync(join(desk, '.git', 'MERGE_HEAD'))).toBe(true);
    expect(m.gitState('desk')).not.toBe(before);

    // Any writing command settles it first: the repository as the sync found it, then its own write.
    const added = await m.mem('desk', ['add', 'Ann reads crime novels on the train', '-u', 'ann', '--json']);
    expect(added.code).toBe(0);
    expect(existsSync(join(desk, '.git', 'MERGE_HEAD'))).toBe(false);
    expect(gitIn(desk, 'status', '--porcelain', '--untracked-files=all')).toBe('?? ann/semantic/by-hand.md\n');
    expect(gitIn(desk, 'log', '-1', '--format=%s')).toContain('crime-novels');

    const synced = await m.mem('desk', ['sync', '--json']);
    expect(synced.code).toBe(0);
    expect(synced.json.committed).toEqual(['ann/semantic/by-hand.md']);
    expect(synced.json.incoming.added).toEqual([expect.stringMatching(/swims/)]);
    expect((await m.mem('laptop', ['sync', '--json'])).code).toBe(0);
    for (const machine of ['laptop', 'desk']) {
      const texts = await m.texts(machine);
      expect(texts).not.toMatch(/^(<{7}|>{7}|={7})/m);
      for (const text of ['Lyon', 'swims in the lake', 'cello', 'sourdough', 'crime novels']) expect(texts, machine).toContain(text);
      const doctor = await m.mem(machine, ['doctor', '--json']);
      expect(doctor.json.problems, machine).toEqual([]);
    }
  });
});
