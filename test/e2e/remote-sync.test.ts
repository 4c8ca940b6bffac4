// `mem sync` with real git, the real `bin/mem`, Milvus Lite and the model: two machines exchange memories through a
// bare remote; what was left uncommitted goes in one commit naming the files; an unreachable remote, a refused push
// and a merge that cannot be finished fail with exit 1 and leave the repository exactly as it was; inside a
// project's repository nothing is done.
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { gitIn, machines, type Machines } from '../support/git-clones.js';
import { runMem } from '../support/harness.js';
import { tempRoot } from '../support/temp-root.js';

const found = async (m: Machines, machine: string, query: string) =>
  (await m.mem(machine, ['search', query, '-u', 'ann', '--json'])).json.results.map((r: { content: string }) => r.content).join('\n');

describe('mem sync between two machines', () => {
  let m: Machines;

  beforeAll(async () => {
    m = await machines(['laptop', 'desk'], { user: 'ann', text: 'Ann lives in Lyon with her two cats' });
  });
  afterAll(async () => {
    await m?.dispose();
  });

  it('brings each machine the other’s memories and indexes them; both doctors are clean', async () => {
    expect((await m.mem('desk', ['add', 'Ann plays the cello in an amateur orchestra', '-u', 'ann'])).code).toBe(0);
    const out = await m.mem('desk', ['sync', '--json']);
    expect(out.json).toMatchObject({ place: 'own', remote: 'origin', branch: 'main', outgoing: { commits: 1 } });

    const inc = await m.mem('laptop', ['sync', '--json']);
    expect(inc.code).toBe(0);
    expect(inc.json.incoming).toMatchObject({ commits: 1, forgets: 0, changed: [], deleted: [] });
    expect(inc.json.incoming.added).toEqual([expect.stringMatching(/^ann\/semantic\/.*cello.*\.md$/)]);
    // The one new text, embedded once on this machine.
    expect(inc.json.index).toMatchObject({ embedded: 1, upserted: 1 });
    expect(await found(m, 'laptop', 'which instrument does Ann play')).toContain('cello');
    for (const machine of ['laptop', 'desk']) expect((await m.mem(machine, ['doctor', '--json'])).json.ok).toBe(true);
    // Nothing new either way: a second sync is a no-op.
    expect((await m.mem('laptop', ['sync', '--json'])).json).toMatchObject({ committed: [], incoming: { commits: 0 }, outgoing: { commits: 0 } });
  });

  it('commits what was left uncommitted in one commit naming the files, then pushes it', async () => {
    const by = join(m.roots.laptop!, 'ann/semantic/by-hand.md');
    await writeFile(by, '---\nid: by-hand\n---\nAnn bakes sourdough bread on Saturdays.\n');
    const out = await m.mem('laptop', ['sync', '--json']);
    expect(out.code).toBe(0);
    expect(out.json.committed).toEqual(['ann/semantic/by-hand.md']);
    expect(out.json.outgoing.commits).toBe(1);
    expect(gitIn(m.roots.laptop!, 'log', '-1', '--format=%B')).toContain('ann/semantic/by-hand.md');
    expect(gitIn(m.roots.laptop!, 'status', '--porcelain')).toBe('');
    expect(gitIn(m.remote, 'show', 'main:ann/semantic/by-hand.md')).toContain('sourdough');
    expect((await m.mem('laptop', ['doctor', '--json'])).json.ok).toBe(true);
  });

  it('an unreachable remote: exit 1, a clear error, and the repository exactly as before', async () => {
    await writeFile(join(m.roots.desk!, 'ann/semantic/pending.md'), '---\nid: pending\n---\nAnn is learning Portuguese.\n');
    gitIn(m.roots.desk!, 'add', 'ann/semantic/pending.md');
    await writeFile(join(m.roots.desk!, 'ann/semantic/loose.md'), '---\nid: loose\n---\nAnn runs along the river.\n');
    gitIn(m.roots.desk!, 'remote', 'set-url', 'origin', join(m.dir, 'no-such-remote.git'));
    const before = m.gitState('desk');
    const out = await m.mem('desk', ['sync', '--json']);
    expect(out.code).toBe(1);
    expect(out.json.error.message).toMatch(/cannot reach the remote origin/);
    expect(m.gitState('desk')).toBe(before);
    gitIn(m.roots.desk!, 'remote', 'set-url', 'origin', m.remote);
  });

  it('a push the remote refuses: exit 1, the merge undone, the repository exactly as before', async () => {
    // The laptop has pushed a commit the desk lacks, and the desk has its own: the sync merges, then is refused.
    const hook = join(m.remote, 'hooks', 'pre-receive');
    await writeFile(hook, '#!/bin/sh\necho "pushes are closed for maintenance" >&2\nexit 1\n');
    await chmod(hook, 0o755);
    const before = m.gitState('desk');
    const out = await m.mem('desk', ['sync', '--json']);
    await rm(hook);
    expect(out.code).toBe(1);
    expect(out.json.error.message).toMatch(/refused the push[\s\S]*closed for maintenance/);
    expect(m.gitState('desk')).toBe(before);
    // The laptop's file came in with the merge and went again with it.
    await expect(readFile(join(m.roots.desk!, 'ann/semantic/by-hand.md'))).rejects.toThrow();

    const again = await m.mem('desk', ['sync', '--json']);
    expect(again.code).toBe(0);
    expect(again.json.committed).toEqual(['ann/semantic/loose.md', 'ann/semantic/pending.md']);
    expect(again.json.incoming.added).toEqual(['ann/semantic/by-hand.md']);
    expect(await found(m, 'desk', 'what does Ann bake')).toContain('sourdough');
    expect((await m.mem('desk', ['doctor', '--json'])).json.ok).toBe(true);
  });

  it('a merge that cannot be finished: exit 1 naming the file, no conflict markers, the repository as before', async () => {
    // A file outside memdir's rules (not a memory) changed on both sides: git's own conflict.
    await writeFile(join(m.roots.laptop!, 'notes.txt'), 'laptop\n');
    expect((await m.mem('laptop', ['sync', '--json'])).code).toBe(0);
    await writeFile(join(m.roots.desk!, 'notes.txt'), 'desk\n');
    gitIn(m.roots.desk!, 'add', 'notes.txt');
    gitIn(m.roots.desk!, 'commit', '-qm', 'notes on the desk');
    const before = m.gitState('desk');
    const out = await m.mem('desk', ['sync', '--json']);
    expect(out.code).toBe(1);
    expect(out.json.error.message).toMatch(/could not be finished: notes\.txt/);
    expect(m.gitState('desk')).toBe(before);
    expect(await readFile(join(m.roots.desk!, 'notes.txt'), 'utf8')).toBe('desk\n');
    expect(await m.texts('desk')).not.toMatch(/^(<{7}|>{7}|={7})/m);
  });
});

describe('mem sync inside a project repository', () => {
  let project: string;

  beforeAll(async () => {
    project = await tempRoot({ 'README.md': '# app\n' }, 'memdir-sync-project-');
    gitIn(project, 'init', '-q', '-b', 'main');
    gitIn(project, 'add', '-A');
    gitIn(project, 'commit', '-qm', 'app');
    await mkdir(join(project, 'memories'));
  });
  afterAll(async () => {
    await runMem(['server', 'stop'], { root: join(project, 'memories') });
    await rm(project, { recursive: true, force: true });
  });

  it('changes nothing and says that memory travels with the project’s git flow', async () => {
    await writeFile(join(project, 'memories', 'note.md'), '---\nid: note\nuser: ann\n---\nAnn wrote the app.\n');
    const status = gitIn(project, 'status', '--porcelain');
    const head = gitIn(project, 'rev-parse', 'HEAD');
    const out = await runMem(['sync', '--json'], { root: join(project, 'memories') });
    expect(out.code).toBe(0);
    expect(out.json.place).toBe('project');
    expect(out.json.message).toMatch(/travels with that repository's own git flow/);
    expect(gitIn(project, 'status', '--porcelain')).toBe(status);
    expect(gitIn(project, 'rev-parse', 'HEAD')).toBe(head);
    const human = await runMem(['sync'], { root: join(project, 'memories') });
    expect(human.stdout).toContain(project);
  });
});
