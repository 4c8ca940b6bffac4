// The LoCoMo benchmark on a reused work folder (real Milvus Lite and model): searches run there before, which recorded
// access and so moved the library's recency, leave its figures exactly as its own indexing gives them.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { runLocomo } from '../../bench/locomo/run.js';
import type { AblationMetrics } from '../../bench/locomo/run.js';
import { loadConfig, type MemConfig } from '../../src/config.js';
import { openMemory } from '../../src/open-memory.js';
import { stopLocalServers } from '../../src/server-control.js';
import { cleanEnv } from '../support/harness.js';
import { tempRoot } from '../support/temp-root.js';

// One conversation over five months: the cat's vet visits in January and in June, with talk in between, so an old
// day log that earlier searches touched can outrank the recent one by recency alone.
const turn = (session: number, i: number, speaker: string, text: string) => ({ speaker, dia_id: `D${session}:${i}`, text });
const CONVERSATION = {
  sample_id: 'conv-cat',
  conversation: {
    speaker_a: 'Ann',
    speaker_b: 'Ben',
    session_1_date_time: '10:00 am on 10 January, 2023',
    session_1: [
      turn(1, 1, 'Ann', 'Miso the cat went to the vet today for a check of her teeth.'),
      turn(1, 2, 'Ben', 'Was the vet happy with Miso?'),
      turn(1, 3, 'Ann', 'The vet cleaned her teeth and said the cat is healthy.'),
      turn(1, 4, 'Ben', 'Good news about the cat and the vet.'),
    ],
    session_2_date_time: '6:00 pm on 3 March, 2023',
    session_2: [
      turn(2, 1, 'Ben', 'I started a pottery class on Tuesday evenings.'),
      turn(2, 2, 'Ann', 'What did you make first?'),
      turn(2, 3, 'Ben', 'A lopsided bowl for olives.'),
    ],
    session_3_date_time: '8:00 am on 14 April, 2023',
    session_3: [turn(3, 1, 'Ann', 'We booked a train to Porto for the long weekend.'), turn(3, 2, 'Ben', 'Try the bakery near the river.')],
    session_4_date_time: '11:00 am on 1 June, 2023',
    session_4: [
      turn(4, 1, 'Ann', 'Miso the cat was at the vet again, this time for her vaccine.'),
      turn(4, 2, 'Ben', 'Did the cat mind the vaccine at the vet?'),
      turn(4, 3, 'Ann', 'She hid under the chair at the vet but the vaccine went fine.'),
      turn(4, 4, 'Ben', 'Poor Miso, the vet visit is over for this year.'),
    ],
  },
  qa: [
    { question: 'Why did Miso the cat go to the vet in June?', answer: 'a vaccine', evidence: ['D4:1', 'D4:3'], category: 4 },
    { question: 'How did the cat behave at the vet for her vaccine?', answer: 'hid under the chair', evidence: ['D4:3'], category: 4 },
    { question: 'What did the vet do for Miso at the check?', answer: 'cleaned her teeth', evidence: ['D1:3'], category: 4 },
    { question: 'What class did Ben start?', answer: 'pottery', evidence: ['D2:1'], category: 4 },
    { question: 'Where are they travelling for the long weekend?', answer: 'Porto', evidence: ['D3:1'], category: 4 },
  ],
};

/** The figures that must not move (latency does, with the machine). */
const figures = (m: AblationMetrics) => ({ turn: m.turn, session: m.session, mrr: m.mrr, by_category: m.by_category, budget: m.budget });

describe('npm run bench:locomo on a work folder where searches ran', () => {
  let config: MemConfig | undefined;
  afterAll(async () => {
    if (config) await stopLocalServers(config);
  });

  it('gives the figures of its own indexing, whatever access earlier searches recorded there', async () => {
    const workDir = await tempRoot({}, 'memdir-locomo-access-');
    const data = join(workDir, '..', `${workDir.split('/').pop()}.json`);
    await writeFile(data, JSON.stringify([CONVERSATION]));
    config = { ...loadConfig(cleanEnv(), { root: workDir }), git: false };
    const options = { data, k: 10, workDir, layouts: ['ingest' as const], ablations: ['default', 'hybrid+rescore'] };

    const fresh = await runLocomo(config, options);
    expect(fresh.state).toMatch(/state this run's indexing left/);
    expect(fresh.ablations.default!.questions).toBe(5);
    // What the agent reads: the context block at each budget holds evidence, within the budget.
    const budget = fresh.ablations.default!.budget;
    expect(Object.keys(budget)).toEqual(['500', '1200', '2000']);
    for (const [n, f] of Object.entries(budget)) expect(f.tokens, n).toBeLessThanOrEqual(Number(n));
    expect(budget['2000']!.turn).toBeGreaterThan(0.5);
    expect(budget['2000']!.turn).toBeGreaterThanOrEqual(budget['500']!.turn);

    // What a user's searches leave: each records access to what it returned (the January log, asked about again and again).
    const memory = await openMemory(config);
    const at = new Date('2023-06-02T11:00:00Z');
    const asked = { query: 'Miso the cat at the vet for her teeth', user: 'conv-cat.log', unit: 'chunk' as const, at };
    const january = (rs: { path: string; scores: { recency: number } }[]) => rs.find((r) => r.path.endsWith('2023-01-10.md'))!;
    try {
      const before = january(await memory.search({ ...asked, track: false }));
      for (let i = 0; i < 20; i++) await memory.search({ ...asked, query: `${asked.query} ${i}`, at: undefined });
      // The library's ranking does read that access: the old log is now as recent as the day it was searched.
      const after = january(await memory.search({ ...asked, track: false }));
      expect(before.scores.recency).toBeLessThan(0.1);
      expect(after.scores.recency).toBe(1);
    } finally {
      await memory.close();
    }

    const again = await runLocomo(config, options);
    expect(again.index.embedded).toBe(0);
    for (const name of ['default', 'hybrid+rescore']) expect(figures(again.ablations[name]!), name).toEqual(figures(fresh.ablations[name]!));
  });
});
