// Values that are usage errors, through the real `bin/mem`: absurd lifetimes, dates that are not dates or
// already past, non-decimal importance, invisible text; impossible front-matter dates named by path and
// line; a future `updated:` ranked as of the file's last write and reported by doctor.
import { utimes } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runMem } from '../support/harness.js';
import { snapshot } from '../support/sync-fixture.js';
import { tempRoot } from '../support/temp-root.js';

const FILES = {
  'alice/semantic/tea.md': 'Alice drinks sencha green tea every morning.\n',
  'alice/semantic/feb.md': '---\nuser: alice\ncreated: 2026-02-30\n---\nAlice booked the dentist.\n',
  'alice/semantic/zero.md': '---\nuser: alice\ntags: [x]\ncreated: 0000-01-01T00:00:00Z\n---\nAlice was born.\n',
  'alice/semantic/quoted.md': "---\nupdated: '2026-04-31T10:00:00Z'\n---\nAlice planted tomatoes.\n",
  'alice/semantic/future.md': '---\nupdated: 9999-01-01T00:00:00Z\n---\nAlice drinks oolong tea in the evening.\n',
};

describe('bad values through mem', () => {
  let root: string;

  beforeAll(async () => {
    root = await tempRoot(FILES, 'memdir-e2e-values-');
    // Written by hand a year ago: its ranking must not depend on the date it claims.
    const yearAgo = new Date(Date.now() - 365 * 24 * 3_600_000);
    await utimes(join(root, 'alice/semantic/future.md'), yearAgo, yearAgo);
  });
  afterAll(async () => {
    await runMem(['server', 'stop'], { root });
  });

  it.each([
    [['--ttl', '999999999d'], /ttl must be at most 1000 years/],
    [['--expires', '5'], /expires: not an ISO 8601 date/],
    [['--expires', '2026-02-30'], /expires: no such day/],
    [['--expires', '2020-01-01T00:00:00Z'], /expires 2020-01-01T00:00:00.000Z is already past/],
    [['--importance', '0x1'], /--importance must be a decimal number from 0 to 1, got "0x1"/],
    [['--importance', '1e0'], /--importance must be a decimal number/],
  ])('mem add %j is a usage error (exit 2) and writes nothing', async (flags, message) => {
    const before = await snapshot(root);
    const run = await runMem(['add', 'Alice parks at gate 7', '--user', 'alice', ...flags, '--json'], { root });
    expect(run.code).toBe(2);
    expect(run.json.error.code).toBe('USAGE');
    expect(run.json.error.message).toMatch(message);
    expect(await snapshot(root)).toEqual(before);
  });

  it('text of zero-width characters only is refused as empty', async () => {
    const run = await runMem(['add', '\u200b\u200c\u2060\ufeff', '--user', 'alice'], { root });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/the memory text is empty \(or only invisible characters\)/);
  });

  // First search of the root: no access has been recorded yet to lift its recency.
  it("a future updated: is ranked as of the file's last write, and doctor reports it by path and line", async () => {
    const hit = await runMem(['search', 'oolong tea in the evening', '--user', 'alice', '--json'], { root });
    const future = hit.json.results.find((r: { path: string }) => r.path === 'alice/semantic/future.md');
    expect(future.updated.slice(0, 4)).not.toBe('9999');
    expect(Date.parse(future.updated)).toBeLessThan(Date.now() - 300 * 24 * 3_600_000);
    expect(future.scores.recency).toBeLessThan(0.6); // a year of a one-year half-life, not the full boost

    const doc = await runMem(['doctor', '--json'], { root });
    expect(doc.code).toBe(1);
    expect(doc.json.problems).toContainEqual({
      kind: 'future-date',
      path: 'alice/semantic/future.md',
      line: 2,
      fixable: false,
      detail: expect.stringMatching(/^updated 9999-01-01T00:00:00.000Z is in the future: ranked as of the file's last write \(\d{4}-.*\); correct the date$/),
    });
  });
  it('impossible front-matter dates are errors by path and line; the other files index', async () => {
    const re = await runMem(['reindex', '--json'], { root });
    expect(re.code).toBe(1);
    const errors = [...re.json.errors].sort((a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path));
    expect(errors).toEqual([
      { path: 'alice/semantic/feb.md', line: 3, message: 'front matter "created": no such day: "2026-02-30"' },
      { path: 'alice/semantic/quoted.md', line: 2, message: 'front matter "updated": no such day: "2026-04-31T10:00:00Z"' },
      { path: 'alice/semantic/zero.md', line: 4, message: 'front matter "created": year 0000 is out of range (1000–9999): "0000-01-01T00:00:00Z"' },
    ]);
    const tea = await runMem(['search', 'green tea', '--user', 'alice', '--json'], { root });
    expect(tea.json.results.map((r: { path: string }) => r.path)).toContain('alice/semantic/tea.md');
  });
});
