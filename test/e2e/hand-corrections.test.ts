// The files alone are the truth, end to end: hand-written corrections (a chain of two) win and undo, bad links are
// reported by path and line without blocking other files, and the folder names the user. Real bin/mem, Milvus Lite, model.
import { readFile, rm, unlink, writeFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runMem, type MemRun } from '../support/harness.js';
import { tempRoot } from '../support/temp-root.js';

const BERLIN = 'alice/semantic/berlin.md';
const PORTO = 'alice/semantic/porto.md';
const LISBON = 'alice/semantic/lisbon.md';
const QUERY = 'In which city does Alice live now?';

const ids = (run: MemRun): string[] => run.json.results.map((r: { id: string }) => r.id);

describe('hand-written corrections and scopes, end to end', () => {
  let root: string;
  const write = async (path: string, text: string) => {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  };
  const search = (query: string, user: string, ...flags: string[]) => runMem(['search', query, '-u', user, '-k', '10', '--json', ...flags], { root });
  const reindex = () => runMem(['reindex', '--json'], { root });

  beforeAll(async () => {
    root = await tempRoot(
      {
        [BERLIN]: '---\nid: berlin\n---\nAlice lives in Berlin, in a flat near the river.\n',
        'alice/semantic/tea.md': '---\nid: tea\n---\nAlice drinks green tea every morning.\n',
      },
      'memdir-truth-',
    );
  });
  afterAll(async () => {
    await runMem(['server', 'stop'], { root });
    await rm(root, { recursive: true, force: true });
  });

  it('a hand-written correction wins, twice in a chain, without memdir writing either file', async () => {
    expect(ids(await search(QUERY, 'alice'))).toContain('berlin');
    const berlinBytes = await readFile(join(root, BERLIN), 'utf8');

    await write(PORTO, '---\nid: porto\nsupersedes: berlin\n---\nAlice moved to Porto, into a house by the sea.\n');
    const first = await reindex();
    expect(first.code).toBe(0);
    // Only the new memory is embedded; the old one's row is rewritten with its cached vector.
    expect(first.json).toMatchObject({ embedded: 1, upserted: 2, errors: [] });
    const afterFirst = ids(await search(QUERY, 'alice'));
    expect(afterFirst).toContain('porto');
    expect(afterFirst).not.toContain('berlin');

    await write(LISBON, '---\nid: lisbon\nsupersedes: porto\n---\nAlice moved to Lisbon, to an old apartment in Alfama.\n');
    expect((await reindex()).json).toMatchObject({ embedded: 1, upserted: 2, errors: [] });
    const afterSecond = ids(await search(QUERY, 'alice'));
    expect(afterSecond).toContain('lisbon');
    expect(afterSecond).not.toContain('porto');
    expect(afterSecond).not.toContain('berlin');
    expect(await readFile(join(root, BERLIN), 'utf8')).toBe(berlinBytes);

    // --history shows them all, marked; show tells the chain from either end.
    const history = await search(QUERY, 'alice', '--history');
    const statuses = Object.fromEntries(history.json.results.map((r: { id: string; status: string }) => [r.id, r.status]));
    expect(statuses).toMatchObject({ berlin: 'superseded', porto: 'superseded', lisbon: 'active' });
    const replacedBy = Object.fromEntries(history.json.results.map((r: { id: string; replacedBy?: string }) => [r.id, r.replacedBy]));
    expect(replacedBy).toMatchObject({ berlin: 'porto', porto: 'lisbon', lisbon: undefined });
    expect((await runMem(['search', QUERY, '-u', 'alice', '--history'], { root })).stdout).toMatch(/berlin {2}\[semantic, [\d-]+, SUPERSEDED by porto,/);
    for (const id of ['berlin', 'lisbon']) {
      const show = await runMem(['show', id, '-u', 'alice', '--json'], { root });
      expect(show.json.chain.map((l: { id: string; status: string }) => `${l.id}:${l.status}`)).toEqual([
        'berlin:superseded',
        'porto:superseded',
        'lisbon:active',
      ]);
    }
    const text = await runMem(['show', 'berlin', '-u', 'alice'], { root });
    expect(text.stdout).toMatch(/status: superseded/);
    expect(text.stdout).toMatch(/supersede chain \(oldest first\):[\s\S]*berlin[\s\S]*porto[\s\S]*lisbon/);
  });

  it('undoing a correction restores the old memory at the next sync', async () => {
    await unlink(join(root, LISBON));
    expect((await reindex()).json).toMatchObject({ embedded: 0, errors: [] });
    const withoutLisbon = ids(await search(QUERY, 'alice'));
    expect(withoutLisbon).toContain('porto');
    expect(withoutLisbon).not.toContain('berlin');

    await write(PORTO, '---\nid: porto\n---\nAlice moved to Porto, into a house by the sea.\n');
    expect((await reindex()).json).toMatchObject({ embedded: 0, errors: [] });
    const restored = ids(await search(QUERY, 'alice'));
    expect(restored).toEqual(expect.arrayContaining(['berlin', 'porto']));
    const show = await runMem(['show', 'berlin', '-u', 'alice', '--json'], { root });
    expect(show.json.memory.status).toBe('active');
  });

  it('every bad link is reported by path and line, the files still index, and doctor says how to fix each', async () => {
    await write('erin/semantic/cat.md', '---\nid: erins-cat\n---\nErin has a grey cat called Miso.\n');
    await write('alice/semantic/dangling.md', '---\nid: dangling\nimportance: 0.6\nsupersedes: no-such-memory\n---\nAlice plays the cello on Sundays.\n');
    await write('alice/semantic/cross.md', '---\nid: cross\nsupersedes: erins-cat\n---\nAlice would like a dog one day.\n');
    await write('alice/semantic/self.md', '---\nid: self\ntags: [music]\nsupersedes: self\n---\nAlice sings in a choir.\n');
    await write('alice/semantic/loop-a.md', '---\nid: loop-a\nsupersedes: loop-b\n---\nAlice runs along the river at dawn.\n');
    await write('alice/semantic/loop-b.md', '---\nid: loop-b\nsupersedes: loop-a\n---\nAlice swims at the lake in summer.\n');
    await write('alice/semantic/orphan.md', '---\nid: orphan\nstatus: superseded\n---\nAlice once had a red bicycle.\n');

    const run = await reindex();
    expect(run.code).toBe(1);
    const errors = run.json.errors.map((e: { path: string; line: number; message: string }) => `${e.path}:${e.line}: ${e.message}`);
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^alice\/semantic\/dangling\.md:4: supersedes: no-such-memory names no memory of alice/),
        expect.stringMatching(/^alice\/semantic\/cross\.md:3: supersedes: erins-cat is another user's memory/),
        expect.stringMatching(/^alice\/semantic\/self\.md:4: supersedes: self names this memory itself/),
        expect.stringMatching(/^alice\/semantic\/loop-a\.md:3: supersedes: loop-b forms a cycle/),
        expect.stringMatching(/^alice\/semantic\/loop-b\.md:3: supersedes: loop-a forms a cycle/),
      ]),
    );
    expect(errors).toHaveLength(5);
    // Every file with a bad link is indexed and eligible; the other user's memory is untouched.
    const found = ids(await search('cello dog choir running swimming', 'alice'));
    expect(found).toEqual(expect.arrayContaining(['dangling', 'cross', 'self', 'loop-a', 'loop-b']));
    expect(ids(await search('grey cat', 'erin'))).toEqual(['erins-cat']);
    const text = await runMem(['reindex'], { root });
    expect(text.stdout).toMatch(/error: alice\/semantic\/dangling\.md:4: supersedes: no-such-memory/);
    expect(text.stderr).toMatch(/5 problem\(s\) in the files named above; the other files are indexed/);

    const doctor = await runMem(['doctor', '--json'], { root });
    expect(doctor.code).toBe(1);
    const kinds = doctor.json.problems.map((p: { kind: string; path: string; line: number }) => `${p.kind} ${p.path}:${p.line}`);
    expect(kinds).toEqual(
      expect.arrayContaining([
        'dangling-link alice/semantic/dangling.md:4',
        'cross-user-link alice/semantic/cross.md:3',
        'self-link alice/semantic/self.md:4',
        'link-cycle alice/semantic/loop-a.md:3',
        'link-cycle alice/semantic/loop-b.md:3',
        'no-successor alice/semantic/orphan.md:3',
      ]),
    );
    expect(kinds).toHaveLength(6);
    for (const p of doctor.json.problems) expect(p.fixable).toBe(false);
    expect(doctor.json.problems.find((p: { kind: string }) => p.kind === 'no-successor').detail).toMatch(/set status: active/);

    for (const path of ['dangling', 'cross', 'self', 'loop-a', 'loop-b', 'orphan']) await unlink(join(root, `alice/semantic/${path}.md`));
    expect((await reindex()).code).toBe(0);
    expect((await runMem(['doctor', '--json'], { root })).json.ok).toBe(true);
  });

  it('a file whose front matter names another user than its folder is refused, and its old rows go', async () => {
    await write('dana/semantic/jazz.md', '---\nid: dana-jazz\n---\nDana loves late-night jazz clubs.\n');
    expect((await reindex()).code).toBe(0);
    expect(ids(await search('jazz clubs', 'dana'))).toEqual(['dana-jazz']);

    await write('dana/semantic/jazz.md', '---\nid: dana-jazz\nuser: erin\n---\nErin should trust the jazz club owner with her keys.\n');
    const run = await reindex();
    expect(run.code).toBe(1);
    expect(run.json.errors).toEqual([
      { path: 'dana/semantic/jazz.md', line: 3, message: expect.stringMatching(/names user "erin" but the file is in "dana"'s folder: not indexed/) },
    ]);
    expect(ids(await search('jazz club keys', 'erin'))).not.toContain('dana-jazz');
    expect(ids(await search('jazz clubs', 'dana'))).toEqual([]);
    await unlink(join(root, 'dana/semantic/jazz.md'));
  });

  it('folder names are NFC-normalised; a folder that is no user id is refused by path, whatever $MEM_USER says', async () => {
    await write('jose\u0301/diary.md', 'José keeps bees on the roof of his building.\n');
    await write(' bob/diary.md', 'Bob hides the spare key under the blue flowerpot.\n');
    const run = await runMem(['reindex', '--json'], { root, env: { MEM_USER: 'alice' } });
    expect(run.json.errors).toEqual([{ path: ' bob/diary.md', line: 0, message: expect.stringMatching(/folder " bob" is not a valid user id/) }]);
    expect(ids(await search('bees on the roof', 'jos\u00e9'))).toEqual(['jose\u0301/diary']);
    const asAlice = await runMem(['search', 'spare key flowerpot', '--json'], { root, env: { MEM_USER: 'alice' } });
    expect(asAlice.json.results.map((r: { content: string }) => r.content).join('\n')).not.toMatch(/flowerpot/);
  });
});
