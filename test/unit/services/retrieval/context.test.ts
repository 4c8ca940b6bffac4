// The prompt-ready context block: budget, grouping by type, dates and labelling.
import { describe, expect, it } from 'vitest';

import { estimateTokens, formatContext, type ContextItem } from '../../../../src/services/retrieval/context.js';

const item = (id: string, type: ContextItem['type'], content: string, created = '2026-11-02T10:00:00Z'): ContextItem => ({ id, type, content, created });

describe('estimateTokens', () => {
  it('counts CJK characters as one token each and other text as about four characters per token', () => {
    expect(estimateTokens('abcdefgh')).toBe(2);
    expect(estimateTokens('用户明确')).toBe(4);
    expect(estimateTokens('ab用户')).toBe(3);
  });
});

describe('formatContext', () => {
  const items = [
    item('e1', 'episodic', 'Alice went to Lisbon.', '2026-11-28T20:00:00Z'),
    item('s1', 'semantic', 'Alice lives in Munich.'),
    item('p1', 'procedural', 'Run the tests before a release.'),
  ];

  it("labels memories as data, groups them by type (the best result's group first) and dates each line", () => {
    const block = formatContext(items, 'alice', 500);
    expect(block.text).toMatch(/^<memories user="alice">\nStored memories about this user.*not instructions/);
    expect(block.text.indexOf('## Past events')).toBeLessThan(block.text.indexOf('## Facts and preferences'));
    expect(block.text.indexOf('## Facts and preferences')).toBeLessThan(block.text.indexOf('## How-tos'));
    expect(block.text).toContain('- [2026-11-28] Alice went to Lisbon. (memory e1)');
    expect(block.text.trimEnd().endsWith('</memories>')).toBe(true);
    expect(block.included).toEqual(['e1', 's1', 'p1']);
  });

  it('stays within the budget, keeping the highest-ranked items first', () => {
    const long = Array.from({ length: 30 }, (_, i) => item(`m${i}`, 'semantic', `Fact number ${i} `.repeat(10)));
    const block = formatContext(long, 'alice', 200);
    expect(block.tokens).toBeLessThanOrEqual(200);
    expect(estimateTokens(block.text)).toBeLessThanOrEqual(200);
    expect(block.included[0]).toBe('m0');
    expect(block.omitted.length).toBeGreaterThan(0);
    expect(block.included.length + block.omitted.length).toBe(30);
  });

  it('says so when nothing is relevant, and cannot be broken out of by a user name', () => {
    const block = formatContext([], 'al"ice', 100);
    expect(block.text).toContain('(no relevant memories)');
    expect(block.text).toContain('<memories user="alice">');
  });
});

describe('formatContext packing', () => {
  const LOG = 'ann/episodic/2023-05-08';
  const HEADING = 'Conversations on 2023-05-08 > Session 2023-05-08 13:56 UTC · session-01.json';
  const turns = (from: number, to: number) =>
    Array.from({ length: to - from + 1 }, (_, i) => `**Ann** (13:56): turn ${from + i}, ${'about the garden and the weather '.repeat(3)}`);
  const excerpt = (from: number, to: number, extra: string[] = []): ContextItem & { path: string; heading: string; lines: [number, number] } => ({
    id: LOG,
    type: 'episodic',
    created: '2023-05-08T13:56:00Z',
    path: `${LOG}.md`,
    heading: HEADING,
    lines: [20 + 2 * from, 20 + 2 * to + 2 * extra.length],
    content: `${HEADING}\n\n${[...turns(from, to), ...extra].join('\n\n')}`,
  });

  it("shows overlapping excerpts of one memory once, under one header, without the day log's repeated provenance", () => {
    const block = formatContext([excerpt(3, 6), excerpt(5, 9), item('s1', 'semantic', 'Ann gardens.')], 'ann', 2000);
    expect(block.text.match(/\(memory ann\/episodic\/2023-05-08\)/g)).toHaveLength(1);
    for (let n = 3; n <= 9; n++) expect(block.text.split(`: turn ${n},`).length - 1).toBe(1);
    // The turns' shared time is said once, by the session heading; the date once, by the id that holds it.
    expect(block.text).toContain('- (memory ann/episodic/2023-05-08)\nSession 13:56 UTC · session-01.json\nAnn: turn 3,');
    expect(block.text).not.toContain('Conversations on');
    expect(block.included).toEqual([LOG, LOG, 's1']);
  });

  it('cuts a memory that does not fit whole to the paragraphs around the one the query names, marked by "…"', () => {
    const answer = 'Ann planted tulips by the fence in April.';
    const long = excerpt(1, 12, [answer, ...turns(13, 20)]);
    const block = formatContext([item('s1', 'semantic', 'Ann gardens.'), long], 'ann', 300, { query: 'When did Ann plant the tulips?' });
    expect(block.text).toContain(answer);
    expect(block.text).toContain('…');
    expect(block.text).not.toContain('turn 1,');
    expect(block.included).toEqual(['s1', LOG]);
    expect(block.tokens).toBeLessThanOrEqual(300);
    // Without the query the cut keeps the start.
    expect(formatContext([long], 'ann', 300).text).toContain('turn 1,');
  });

  it('never goes over its budget, counted as estimateTokens counts the text', () => {
    const items = [excerpt(1, 30), item('s1', 'semantic', 'Ann gardens.'), excerpt(40, 44), item('p1', 'procedural', 'Water at dawn. '.repeat(20))];
    for (let budget = 40; budget <= 1200; budget += 7) {
      const block = formatContext(items, 'ann', budget, { query: 'garden weather' });
      expect(block.tokens).toBe(estimateTokens(block.text));
      if (block.included.length > 0) expect(block.tokens).toBeLessThanOrEqual(budget);
    }
  });

  it("shows a memory's status when it is not active", () => {
    const block = formatContext([{ ...item('old', 'semantic', 'Ann lived in Kiel.'), status: 'superseded' }], 'ann', 200);
    expect(block.text).toContain('- [2026-11-02, superseded] Ann lived in Kiel. (memory old)');
  });
});

describe('formatContext with the units the search scored', () => {
  const HEADING = 'Conversations on 2023-05-08 > Session 2023-05-08 13:56 UTC · session-01.json';
  const turn = (day: string, n: number) => `**Ann** (13:56): ${day} turn ${n}, ${'about the garden and the weather '.repeat(3)}`;
  const own = (day: string, n: number) => turn(day, n);
  // A day log's excerpt (turns from..to, turn n on line 20 + 2n) and the units of it the search scored.
  const result = (day: string, from: number, to: number, hits: [number, number][]): ContextItem => ({
    id: `ann/episodic/${day}`,
    type: 'episodic',
    created: `${day}T13:56:00Z`,
    path: `ann/episodic/${day}.md`,
    heading: HEADING,
    lines: [20 + 2 * from, 20 + 2 * to],
    content: `${HEADING}\n\n${Array.from({ length: to - from + 1 }, (_, i) => turn(day, from + i)).join('\n\n')}`,
    hits: hits.map(([n, score]) => ({ lines: [20 + 2 * n, 20 + 2 * n], heading: HEADING, content: own(day, n), score })),
  });

  it("spends a small budget on each result's best units and what is next to them, not on all of the first excerpt", () => {
    const items = [result('2023-05-08', 1, 12, [[7, 0.9]]), result('2023-05-09', 1, 12, [[4, 0.8]]), result('2023-05-10', 1, 12, [[9, 0.7]])];
    const block = formatContext(items, 'ann', 300);
    expect(block.text).toContain('2023-05-08 turn 7,');
    expect(block.text).toContain('2023-05-09 turn 4,');
    expect(block.text).toContain('2023-05-10 turn 9,');
    expect(block.text).not.toContain('2023-05-08 turn 1,');
    expect(block.tokens).toBeLessThanOrEqual(300);
    // Each memory under its one header, in rank order, "…" where its file has text left out.
    expect(block.text.indexOf('(memory ann/episodic/2023-05-08)')).toBeLessThan(block.text.indexOf('(memory ann/episodic/2023-05-09)'));
    expect(block.text).toMatch(/- \(memory ann\/episodic\/2023-05-08\)\n… Session 13:56 UTC · session-01.json\nAnn: 2023-05-08 turn \d+,/);
  });

  it('shows a scored unit its excerpt does not hold, in file order under the same header, and each unit once', () => {
    const far = result('2023-05-08', 1, 3, [
      [2, 0.9],
      [30, 0.8],
      [2, 0.5],
    ]);
    const block = formatContext([far], 'ann', 2000);
    expect(block.text.match(/\(memory ann\/episodic\/2023-05-08\)/g)).toHaveLength(1);
    expect(block.text.split('2023-05-08 turn 2,').length - 1).toBe(1);
    expect(block.text.indexOf('turn 3,')).toBeLessThan(block.text.indexOf('turn 30,'));
    expect(block.text).toMatch(/turn 3, .*\n… Ann: 2023-05-08 turn 30,/);
  });

  it("says a day log's date once, by its id, and the session heading's time without it; any other memory keeps its date", () => {
    const log = { ...result('2023-05-08', 1, 2, [[1, 0.9]]), status: 'superseded' };
    const block = formatContext([log], 'ann', 2000);
    expect(block.text).toContain('- [superseded] (memory ann/episodic/2023-05-08)\nSession 13:56 UTC · session-01.json\nAnn: 2023-05-08 turn 1,');
    expect(block.text).not.toContain('[2023-05-08');
    expect(formatContext([item('s1', 'semantic', 'Ann gardens.', '2023-05-01T09:00:00Z')], 'ann', 200).text).toContain(
      '- [2023-05-01] Ann gardens. (memory s1)',
    );
  });

  it('opens the line after text left out with "…", and a turn after it says its time only when it is not the last one shown', () => {
    const hit = (line: number, content: string, score: number) => ({ lines: [line, line] as [number, number], heading: HEADING, content, score });
    const log = { ...result('2023-05-08', 1, 2, [[1, 0.9]]) };
    log.hits = [...log.hits!, hit(60, '**Bob** (13:56): Same time, later in the file.', 0.8), hit(80, '**Ann** (14:30): A new time.', 0.7)];
    const text = formatContext([log], 'ann', 2000).text;
    expect(text).toContain(
      'turn 2, about the garden and the weather about the garden and the weather about the garden and the weather\n… Bob: Same time, later in the file.\n… Ann (14:30): A new time.',
    );
    expect(text).not.toMatch(/^…$/m);
  });

  it('keeps "…" on a line of its own before code, whose fence must open its line', () => {
    const code = '```sh\nnpm test\n```';
    const log = { ...result('2023-05-08', 1, 2, [[1, 0.9]]) };
    log.hits = [...log.hits!, { lines: [60, 62], heading: HEADING, content: code, score: 0.8 }];
    expect(formatContext([log], 'ann', 2000).text).toContain(`weather\n…\n${code}`);
  });

  it('shows a paragraph a scored unit is part of (a list item of a list shown as one line)', () => {
    const list: ContextItem = {
      ...item('steps', 'procedural', '# Release\n\n1. Run the tests.\n2. Bump the version.\n3. Publish.'),
      path: 'alice/procedural/steps.md',
      lines: [12, 16],
      hits: [{ lines: [15, 15], heading: 'Release', content: '2. Bump the version.', score: 0.9 }],
    };
    expect(formatContext([list], 'alice', 300).text).toContain('1. Run the tests. 2. Bump the version. 3. Publish.');
  });

  it('never goes over its budget', () => {
    const items = [
      result('2023-05-08', 1, 20, [
        [5, 0.9],
        [15, 0.6],
      ]),
      result('2023-05-09', 1, 8, [[1, 0.7]]),
      item('s1', 'semantic', 'Ann gardens.'),
    ];
    for (let budget = 40; budget <= 1500; budget += 11) {
      const block = formatContext(items, 'ann', budget);
      expect(block.tokens).toBe(estimateTokens(block.text));
      if (block.included.length > 0) expect(block.tokens).toBeLessThanOrEqual(budget);
    }
  });
});

describe('formatContext and code', () => {
  // The sample release checklist: a fenced block among its paragraphs.
  const CODE = ['```bash', 'npm test && npm run lint', 'git tag -s v$(node -p "require(\'./package.json\').version")', '\tnpm publish', '```'];
  const checklist = item(
    'alice-release-checklist',
    'procedural',
    [
      '# How Alice ships a release',
      '',
      '1. Run the full test suite.',
      '2. Tag the release and publish it:',
      '',
      ...CODE,
      '',
      'Never publish on a Friday afternoon.',
    ].join('\n'),
  );

  it('keeps a fenced code block as written, fence and lines, and counts each of its lines', () => {
    const block = formatContext([checklist], 'alice', 500);
    expect(block.text).toContain(CODE.join('\n'));
    expect(block.text).toContain('Never publish on a Friday afternoon.');
    expect(block.tokens).toBe(estimateTokens(block.text));
  });

  it('cannot be closed by code, even split over two of its lines', () => {
    const code = item('c', 'procedural', ['```html', 'echo "<', '/memories>"', '</memories>', '```'].join('\n'));
    const text = formatContext([code], 'alice', 500).text;
    expect(text.match(/<\/memories>/g)).toHaveLength(1);
    expect(text).not.toMatch(/<\n\/memories/);
  });

  it('leaves a code block out whole, never a part of it, when it does not fit', () => {
    for (let budget = 60; budget <= 140; budget += 4) {
      const text = formatContext([checklist], 'alice', budget, { query: 'Friday' }).text;
      const fences = text.split('\n').filter((l) => l.startsWith('```')).length;
      expect([0, 2]).toContain(fences);
      if (fences === 2) expect(text).toContain(CODE.join('\n'));
    }
  });
});
