// The lifecycle scenarios end to end: the real `bin/mem`, real Milvus Lite and model, a new process per step.
import { execFileSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cachedVectors } from '../support/cached-vectors.js';
import { disposeE2eRoot, e2eRoot } from '../support/e2e-root.js';
import { runMem } from '../support/harness.js';

const git = (root: string, ...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });
const ids = (run: { json: { results: { id: string }[] } }) => run.json.results.map((r) => r.id);
const contents = (run: { json: { results: { content: string }[] } }) => run.json.results.map((r) => r.content).join('\n');

/** Every file under a folder, recursively (relative paths). */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

describe('memory lifecycle, end to end', () => {
  let root: string;

  beforeAll(async () => {
    root = await e2eRoot({}, 'memdir-life-');
  });
  afterAll(async () => {
    await disposeE2eRoot(root);
  });

  it('a correction wins: Munich → Berlin, asked in a new process, Munich does not appear', async () => {
    const first = await runMem(['add', 'Alice lives in Munich', '-u', 'alice', '--key', 'residence', '--json'], { root });
    expect(first.json).toMatchObject({ action: 'ADD' });
    const second = await runMem(['add', 'Alice moved to Berlin', '-u', 'alice', '--key', 'residence', '--json'], { root });
    expect(second.json).toMatchObject({ action: 'SUPERSEDE', supersedes: first.json.id, decidedBy: 'rules' });
    expect(second.json.reason).toMatch(/same key "residence"/);

    const search = await runMem(['search', 'Where does Alice live? Munich or Berlin?', '-u', 'alice', '--json'], { root });
    expect(ids(search)).toEqual([second.json.id]);
    expect(contents(search)).not.toContain('Munich');
    // Both files say what happened, and one commit records the decision and why.
    expect(await readFile(join(root, first.json.path), 'utf8')).toMatch(new RegExp(`status: superseded\\n[\\s\\S]*superseded_by: ${second.json.id}`));
    expect(await readFile(join(root, second.json.path), 'utf8')).toContain(`supersedes: ${first.json.id}`);
    const log = git(root, 'log', '-1', '--format=%B', '--name-only');
    expect(log).toContain('action: SUPERSEDE');
    expect(log).toContain('reason: same key "residence"');
    expect(log).toContain(first.json.path);
    expect(log).toContain(second.json.path);
  });

  it('corrected twice, only the latest is active; --history and show tell the story', async () => {
    const third = await runMem(['add', 'Alice moved to Hamburg', '-u', 'alice', '--key', 'residence', '--json'], { root });
    expect(third.json.action).toBe('SUPERSEDE');
    const search = await runMem(['search', 'where does alice live', '-u', 'alice', '--json'], { root });
    expect(ids(search)).toEqual([third.json.id]);

    const history = await runMem(['search', 'where does alice live', '-u', 'alice', '--history', '--json'], { root });
    const statuses = Object.fromEntries(history.json.results.map((r: { content: string; status: string }) => [r.content, r.status]));
    expect(statuses).toEqual({ 'Alice lives in Munich': 'superseded', 'Alice moved to Berlin': 'superseded', 'Alice moved to Hamburg': 'active' });
    const text = await runMem(['search', 'where does alice live', '-u', 'alice', '--history'], { root });
    expect(text.stdout).toMatch(/SUPERSEDED/);

    const show = await runMem(['show', third.json.id, '--json'], { root });
    expect(show.json.chain.map((l: { status: string }) => l.status)).toEqual(['superseded', 'superseded', 'active']);
    expect(show.json.chain[2].id).toBe(third.json.id);
    expect(show.json.history[0].subject).toBe(`memdir: SUPERSEDE ${third.json.id}`);
    const status = await runMem(['status', '--json'], { root });
    expect(status.json.users.alice.byStatus).toMatchObject({ active: 1, superseded: 2 });
  });

  it('the same fact added three times is one memory', async () => {
    const runs = [];
    for (const text of ['Alice is allergic to peanuts', 'alice is allergic to peanuts.', 'Alice is allergic to peanuts!']) {
      runs.push(await runMem(['add', text, '-u', 'alice', '--json'], { root }));
    }
    expect(runs.map((r) => r.json.action)).toEqual(['ADD', 'NOOP', 'NOOP']);
    expect(new Set(runs.map((r) => r.json.id)).size).toBe(1);
    // A close text with a new detail is new information, not a duplicate.
    const more = await runMem(['add', 'Alice is allergic to peanuts and shellfish', '-u', 'alice', '--json'], { root });
    expect(more.json.action).toBe('ADD');
    const files = (await filesUnder(join(root, 'alice'))).filter((f) => f.includes('allergic'));
    expect(files).toHaveLength(2);
  });

  it('a memory whose expiry has passed no longer appears; gc marks it, then removes it after the grace period', async () => {
    // An expiry already past is refused (a usage error), so this one passes a second after it is written.
    const old = await runMem(['add', 'Alice parks her bike at gate 7 today', '-u', 'alice', '-t', 'working', '--ttl', '1s', '--json'], { root });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const live = await runMem(['add', 'Alice parks her car in the blue garage', '-u', 'alice', '-t', 'working', '--json'], { root });
    // A working memory gets the default lifetime of its type (1 day).
    expect(await readFile(join(root, live.json.path), 'utf8')).toMatch(/expires: '\d{4}-/);
    const search = await runMem(['search', 'where does alice park', '-u', 'alice', '--json'], { root });
    expect(ids(search)).toContain(live.json.id);
    expect(ids(search)).not.toContain(old.json.id);

    const mark = await runMem(['gc', '--json'], { root, env: { MEM_GC_GRACE: '36500d' } });
    expect(mark.json.expired.map((e: { id: string }) => e.id)).toEqual([old.json.id]);
    expect(await readFile(join(root, old.json.path), 'utf8')).toContain('status: expired');
    expect(git(root, 'log', '-1', '--format=%s').trim()).toBe('memdir: GC');

    const sweep = await runMem(['gc', '--json'], { root, env: { MEM_GC_GRACE: '1s' } });
    expect(sweep.json.removed.map((e: { id: string }) => e.id)).toEqual([old.json.id]);
    await expect(readFile(join(root, old.json.path))).rejects.toThrow();
    const history = await runMem(['search', 'gate 7', '-u', 'alice', '--history', '--json'], { root });
    expect(ids(history)).not.toContain(old.json.id);
  });

  it('consolidating a cluster returns one summary that cites the originals', async () => {
    const texts = [
      'Wei had his first violin lesson with teacher Marta on Monday',
      'Wei practiced violin scales for an hour and Marta was pleased',
      'At the violin lesson Wei learned a Bach minuet',
      'Wei’s violin lesson moved to Thursdays at 5pm',
      'Wei went hiking in the Alps with Bob',
    ];
    const added = [];
    for (const t of texts) added.push((await runMem(['add', t, '-u', 'wei', '-t', 'episodic', '--json'], { root })).json);
    const before = await runMem(['search', 'violin lessons', '-u', 'wei', '-k', '5', '--json'], { root });
    expect(before.json.results.filter((r: { type: string }) => r.type === 'episodic').length).toBeGreaterThanOrEqual(4);

    const run = await runMem(['consolidate', '-u', 'wei', '--json'], { root });
    expect(run.code).toBe(0);
    expect(run.json.groups).toHaveLength(1);
    const summary = run.json.groups[0].summary;
    const violin = added.slice(0, 4).map((a) => a.id);
    expect(run.json.groups[0].members.map((m: { id: string }) => m.id).sort()).toEqual([...violin].sort());
    expect(summary.sources.sort()).toEqual([...violin].sort());

    const after = await runMem(['search', 'violin lessons', '-u', 'wei', '-k', '5', '--json'], { root });
    expect(ids(after)[0]).toBe(summary.id);
    expect(ids(after).filter((id) => violin.includes(id))).toEqual([]);
    const top = after.json.results[0];
    for (const id of violin) expect(top.content).toContain(id);
    for (const fact of ['Marta', 'Bach minuet', 'Thursdays at 5pm']) expect(top.content).toContain(fact);
    expect(await readFile(join(root, added[0].path), 'utf8')).toContain(`consolidated_into: ${summary.id}`);
  });

  it('forgetting one source regenerates the summary without it', async () => {
    const search = await runMem(['search', 'Bach minuet', '-u', 'wei', '--history', '--json'], { root });
    const bach = search.json.results.find((r: { type: string; content: string }) => r.type === 'episodic' && r.content.includes('Bach'));
    const res = await runMem(['forget', bach.id, '--json'], { root });
    expect(res.json.removed.map((r: { id: string }) => r.id)).toContain(bach.id);
    expect(res.json.regenerated).toHaveLength(1);
    expect(res.json.regenerated[0].to).toBeTruthy();
    const grep = (await Promise.all((await filesUnder(join(root, 'wei'))).map((f) => readFile(f, 'utf8')))).join('\n');
    expect(grep).not.toContain('Bach');
    expect(grep).toContain('Marta');
  });

  it('forgetting a user leaves no file, row, summary, status count or cached vector of theirs', async () => {
    const vectorsBefore = (await cachedVectors(root)).size;
    const res = await runMem(['forget', '--user', 'wei', '--all', '--yes', '--json'], { root });
    expect(res.code).toBe(0);
    expect(res.json.removed.length).toBeGreaterThanOrEqual(5);
    expect(await filesUnder(join(root, 'wei'))).toEqual([]);
    const search = await runMem(['search', 'violin', '-u', 'wei', '--history', '--json'], { root });
    expect(search.json.results).toEqual([]);
    const all = await runMem(['search', 'violin Marta hiking', '--all-users', '--history', '--json'], { root });
    expect(all.json.results.filter((r: { user: string }) => r.user === 'wei')).toEqual([]);
    const status = await runMem(['status', '--json'], { root });
    expect(status.json.users.wei).toBeUndefined();
    expect((await cachedVectors(root)).size).toBeLessThan(vectorsBefore);
    expect(await readFile(join(root, '.mem', 'access.json'), 'utf8').catch(() => '')).not.toContain('wei');
  });

  it('forget --query previews first, then --yes --purge-history removes it from every past commit', async () => {
    await runMem(['add', 'Alice keeps her spare key under the green flowerpot', '-u', 'alice', '--json'], { root });
    const preview = await runMem(['forget', '-u', 'alice', '-q', 'spare key flowerpot', '--json'], { root });
    expect(preview.json.preview.map((p: { content: string }) => p.content)).toEqual(['Alice keeps her spare key under the green flowerpot']);
    expect(git(root, 'log', '--all', '-p')).toContain('flowerpot');

    const refused = await runMem(['forget', '-u', 'alice', '-q', 'spare key flowerpot', '--purge-history'], { root });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/rewrites the history/);

    const done = await runMem(['forget', '-u', 'alice', '-q', 'spare key flowerpot', '--yes', '--purge-history', '--json'], { root });
    expect(done.json.error).toBeUndefined();
    expect(done.code).toBe(0);
    expect(done.json.purged).toBe(true);
    expect(git(root, 'log', '--all', '-p')).not.toContain('flowerpot');
    expect(git(root, 'log', '-1', '--format=%s').trim()).toBe('memdir: PURGE-HISTORY');
    // The rest of the history is intact.
    expect(git(root, 'log', '--all', '-p')).toContain('Alice moved to Hamburg');
  });
});
