// Covers mergeMemoryFile: a day log gets both sides' entries in time order, each once; a memory both sides changed
// keeps both changes, or the later `updated:` keeps the path and the other version becomes a memory it supersedes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { mergeMemoryFile } from '../../../../src/memory/merge/file.js';
import { parseMemory } from '../../../../src/memory/parse.js';

const LOG = 'ann/episodic/2026-12-01.md';
const ctx = (path: string) => ({ path, defaultUser: 'nobody', fallbackTime: '2000-01-01T00:00:00.000Z' });

const session = (time: string, text: string) =>
  `## Session 2026-12-01 ${time} UTC · claude-code\n\n_Conversation from claude-code, ingested 2026-12-01T${time}:00.000Z, 2 turns, sha256 ${hashOf(text)}._\n\n**user** (${time}): ${text}`;
const hashOf = (text: string) =>
  Array.from(text)
    .reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7)
    .toString(16)
    .padStart(16, '0');
const dayLog = (updated: string, sessions: string[]) =>
  `---\nid: ${LOG.replace(/\.md$/, '')}\nuser: ann\ntype: episodic\nimportance: 0.3\nstatus: active\ncreated: 2026-12-01T08:00:00.000Z\nupdated: ${updated}\ntags:\n  - conversation\nsource: ingest\n---\n# Conversations on 2026-12-01\n\n${sessions.join('\n\n')}\n`;

const memory = (updated: string, body: string, tags: string[] = ['home']) =>
  `---\nid: home\nuser: ann\ntype: semantic\ncreated: 2026-11-01T08:00:00.000Z\nupdated: ${updated}\ntags:\n${tags.map((t) => `  - ${t}`).join('\n')}\n---\n${body}\n`;

const merged = (input: Parameters<typeof mergeMemoryFile>[0]) => {
  const r = mergeMemoryFile(input);
  if (!r.ok) throw new Error(r.reason);
  return r;
};

describe('mergeMemoryFile: day logs', () => {
  const s1 = session('09:00', 'first talk');
  const s2 = session('10:00', 'laptop talk');
  const s3 = session('11:00', 'workstation talk');

  it('unites both sides’ new entries in time order, each once, with the later updated', () => {
    const base = dayLog('2026-12-01T09:05:00.000Z', [s1]);
    const ours = dayLog('2026-12-01T11:05:00.000Z', [s1, s3]);
    const theirs = dayLog('2026-12-01T10:05:00.000Z', [s1, s2]);
    const r = merged({ path: LOG, base, ours, theirs });
    expect(r.how).toBe('day-log');
    const doc = parseMemory(r.text, ctx(LOG));
    expect(doc.body).toBe(`# Conversations on 2026-12-01\n\n${s1}\n\n${s2}\n\n${s3}\n`);
    expect(doc.meta.updated).toBe('2026-12-01T11:05:00.000Z');
    expect(r.text).not.toMatch(/^(<{7}|={7}|>{7})/m);
  });

  it('unites two logs both sides created (no common ancestor)', () => {
    const r = merged({ path: LOG, base: '', ours: dayLog('2026-12-01T11:05:00.000Z', [s3]), theirs: dayLog('2026-12-01T10:05:00.000Z', [s2]) });
    expect(parseMemory(r.text, ctx(LOG)).body).toBe(`# Conversations on 2026-12-01\n\n${s2}\n\n${s3}\n`);
  });

  it('keeps an entry deleted on one side deleted when the other left it as it was', () => {
    const base = dayLog('2026-12-01T10:05:00.000Z', [s1, s2]);
    const ours = dayLog('2026-12-01T11:00:00.000Z', [s2]);
    const theirs = dayLog('2026-12-01T11:05:00.000Z', [s1, s2, s3]);
    expect(parseMemory(merged({ path: LOG, base, ours, theirs }).text, ctx(LOG)).body).toBe(`# Conversations on 2026-12-01\n\n${s2}\n\n${s3}\n`);
  });

  // Each session once, in one of four places: in the base, added on our side, on theirs, or the same one on both.
  const sessions = fc.uniqueArray(
    fc.tuple(fc.integer({ min: 0, max: 23 * 60 + 59 }), fc.stringMatching(/^[a-z]([a-z ]{0,10}[a-z])?$/), fc.integer({ min: 0, max: 3 })),
    {
      selector: ([, t]) => t,
      maxLength: 12,
    },
  );
  const render = ([m, t]: [number, string, number]) => session(`${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`, t);

  it('is commutative and holds every entry of either side exactly once (property)', () => {
    fc.assert(
      fc.property(sessions, (all) => {
        const where = (...groups: number[]) => all.filter(([, , g]) => groups.includes(g)).map(render);
        const base = dayLog('2026-12-01T08:30:00.000Z', where(0));
        const ours = dayLog('2026-12-01T20:00:00.000Z', [...where(0), ...where(1, 3)]);
        const theirs = dayLog('2026-12-01T21:00:00.000Z', [...where(0), ...where(2, 3)]);
        const x = merged({ path: LOG, base, ours, theirs });
        const y = merged({ path: LOG, base, ours: theirs, theirs: ours });
        expect(x.text).toBe(y.text);
        const body = parseMemory(x.text, ctx(LOG)).body;
        for (const entry of all.map(render)) expect(body.split(entry).length - 1).toBe(1);
        const times = [...body.matchAll(/^## Session 2026-12-01 (\d\d:\d\d)/gm)].map((m) => m[1]!);
        expect(times).toEqual([...times].sort());
      }),
      { numRuns: 200 },
    );
  });
});

describe('mergeMemoryFile: one memory changed on both sides', () => {
  const base = memory('2026-11-01T08:00:00.000Z', 'Ann lives in Lyon.\n\nShe cycles to work.');

  it('unites changes to different lines and the tags both sides added', () => {
    const ours = memory('2026-12-01T10:00:00.000Z', 'Ann lives in Paris.\n\nShe cycles to work.', ['home', 'city']);
    const theirs = memory('2026-12-02T10:00:00.000Z', 'Ann lives in Lyon.\n\nShe takes the tram to work.', ['home', 'commute']);
    const r = merged({ path: 'ann/semantic/home.md', base, ours, theirs });
    expect(r.how).toBe('united');
    expect(r.kept).toBeUndefined();
    const doc = parseMemory(r.text, ctx('ann/semantic/home.md'));
    expect(doc.body).toBe('Ann lives in Paris.\n\nShe takes the tram to work.\n');
    expect(doc.meta.tags.sort()).toEqual(['city', 'commute', 'home']);
    expect(doc.meta.updated).toBe('2026-12-02T10:00:00.000Z');
  });

  it('keeps the later updated at the path and the other as a superseded memory beside it', () => {
    const ours = memory('2026-12-01T10:00:00.000Z', 'Ann lives in Paris.\n\nShe cycles to work.', ['home', 'paris']);
    const theirs = memory('2026-12-02T10:00:00.000Z', 'Ann lives in Hamburg.\n\nShe cycles to work.', ['home', 'hamburg']);
    const r = merged({ path: 'ann/semantic/home.md', base, ours, theirs });
    expect(r.how).toBe('kept-both');
    const doc = parseMemory(r.text, ctx('ann/semantic/home.md'));
    expect(doc.body).toContain('Hamburg');
    expect(doc.meta.tags.sort()).toEqual(['hamburg', 'home', 'paris']);
    const kept = parseMemory(r.kept!.text, ctx(r.kept!.path));
    expect(r.kept!.path).toMatch(/^ann\/semantic\/home\.[0-9a-f]{8}\.md$/);
    expect(kept.body).toContain('Paris');
    expect(kept.meta).toMatchObject({ id: r.kept!.id, status: 'superseded', superseded_by: 'home' });
    expect(doc.meta.supersedes).toBe(r.kept!.id);
    // The same two sides give the same files whichever was ours.
    const swapped = merged({ path: 'ann/semantic/home.md', base, ours: theirs, theirs: ours });
    expect(swapped.text).toBe(r.text);
    expect(swapped.kept).toEqual(r.kept);
  });

  it('writes no key neither side had (a default is not filled in)', () => {
    const plain = (body: string) => `---\ntags: [a]\n---\n${body}\n`;
    const r = merged({ path: 'ann/semantic/note.md', base: plain('one\ntwo'), ours: plain('uno\ntwo'), theirs: `---\ntags: [a, b]\n---\none\ntwo\n` });
    expect(r.text).toBe('---\ntags:\n  - a\n  - b\n---\nuno\ntwo\n');
  });

  it('leaves a side it cannot read to git', () => {
    const r = mergeMemoryFile({ path: 'ann/semantic/home.md', base, ours: '---\ntags: [a\n---\nbroken\n', theirs: base });
    expect(r.ok).toBe(false);
  });
});
