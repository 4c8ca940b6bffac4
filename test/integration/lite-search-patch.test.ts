// The Milvus Lite that memdir starts reuses its searches' version maps and newest rows (memdir_runtime/lite_search_patch.py):
// BM25's per set of segments, dense search's per set of partition segments. Both patches are applied to the pinned
// Milvus Lite, and BM25 still returns only the newest version of an edited memory after each of several syncs, and a
// corrected memory, whose rows are rewritten under the same keys, stays out of BM25 and dense searches alike (each
// flush adds a segment, so a map is rebuilt, not reused stale). A differential run (python/checks/lite_search_diff.py)
// searches one collection through random upserts, moves, deletes, flushes and compactions with Milvus Lite's own
// functions and the patched ones, and finds no difference in hits, distances or fields.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { PYTHON_CODE_DIR, pythonCodeEnv } from '../../src/adapters/runtime/python-code.js';
import { ensureRuntime } from '../../src/adapters/runtime/python-runtime.js';
import { openTestMemory, type TestMemory } from '../support/harness.js';
import { ownServerHome } from '../support/server-home.js';

const fm = (id: string) => `---\nid: ${id}\ntype: semantic\n---\n`;

describe('Milvus Lite BM25 and dense search with the version map kept per set of segments', () => {
  const home = ownServerHome();
  let t: TestMemory;

  beforeAll(async () => {
    t = await openTestMemory({
      'ann/semantic/drink.md': `${fm('ann-drink')}Ann drinks green tea every morning.\n`,
      'ann/semantic/bike.md': `${fm('ann-bike')}Ann rides a red bicycle to work.\n`,
    });
    await t.memory.reindex();
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  const bm25 = async (query: string) => (await t.memory.search({ query, user: 'ann', k: 5, mode: 'bm25' })).map((r) => r.content ?? '');
  const dense = async (query: string) => (await t.memory.search({ query, user: 'ann', k: 5, mode: 'dense' })).map((r) => r.content ?? '');

  it('is applied by the launcher to the pinned Milvus Lite', async () => {
    await bm25('green tea'); // a BM25 search has run on this server
    const log = await readFile(join(home(), 'servers', 'milvus-lite.log'), 'utf8');
    expect(log).toContain('memdir: BM25 search reuses its per-segment version map');
    expect(log).toContain('memdir: dense search reuses its per-partition version map');
    expect(log).toContain("memdir: BM25 search reuses its segments' newest rows");
    expect(log).toContain("memdir: dense search reuses its segments' newest rows");
    expect(log).toContain('memdir: BM25 search reads only the shown fields of its hits');
    expect(log).toContain("memdir: BM25 scores with its partitions' statistics, not each segment's");
    expect(log).toContain('memdir: dense search reads only the shown fields of its hits');
    expect(log).toContain("memdir: BM25 scores each query term's postings as arrays");
    expect(log).toContain("memdir: BM25 builds a segment's index from its packed column as arrays");
    expect(log).toContain('memdir: search finds the fields its hits show once per request, not once per hit');
    expect(log).toContain('memdir: background compaction and index builds wait for a pause in writes');
  });

  it('finds only the newest text of a memory edited in several syncs', async () => {
    expect((await bm25('green tea')).join('\n')).toContain('green tea');
    const path = join(t.root, 'ann/semantic/drink.md');
    for (const drink of ['black coffee', 'mint lemonade', 'hot chocolate']) {
      await writeFile(path, `${fm('ann-drink')}Ann drinks ${drink} every morning.\n`);
      await t.memory.reindex();
      const found = (await bm25('Ann drinks every morning green tea black coffee mint lemonade hot chocolate')).join('\n');
      expect(found).toContain(drink);
      for (const old of ['green tea', 'black coffee', 'mint lemonade', 'hot chocolate'].filter((d) => d !== drink)) {
        expect(found).not.toContain(old);
      }
    }
    expect((await bm25('red bicycle')).join('\n')).toContain('red bicycle');
  });

  it('keeps a corrected memory out once its rows are rewritten as superseded (same keys, newer versions, new segments)', async () => {
    expect((await bm25('red bicycle')).join('\n')).toContain('red bicycle');
    // The dense map of ann's partition is built here, before the correction: a map reused stale would keep the old row.
    expect((await dense('Ann rides a red bicycle to work')).join('\n')).toContain('red bicycle');
    await writeFile(
      join(t.root, 'ann/semantic/scooter.md'),
      `---\nid: ann-scooter\ntype: semantic\nsupersedes: ann-bike\n---\nAnn rides an electric scooter to work now.\n`,
    );
    await t.memory.reindex();
    const found = (await bm25('Ann rides a red bicycle electric scooter to work')).join('\n');
    expect(found).toContain('electric scooter');
    expect(found).not.toContain('red bicycle');
    const near = (await dense('Ann rides a red bicycle to work')).join('\n');
    expect(near).toContain('electric scooter');
    expect(near).not.toContain('red bicycle');
  });

  it('returns what Milvus Lite itself returns through random writes, deletes, flushes and compactions (differential)', async () => {
    const runtime = await ensureRuntime({ home: t.config.runtimeHome, python: t.config.python });
    const dir = await mkdtemp(join(tmpdir(), 'memdir-lite-diff-'));
    try {
      const script = join(PYTHON_CODE_DIR, 'checks', 'lite_search_diff.py');
      for (const seed of [1, 2, 3]) {
        const { stdout } = await promisify(execFile)(runtime.python, [script, join(dir, `data-${seed}`), '80', String(seed)], {
          env: { ...process.env, ...pythonCodeEnv() },
        });
        const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
          compared: number;
          firstDifference: unknown;
          wideCompared: number;
          wideFirstDifference: unknown;
          scorerCompared: number;
          scorerDiffering: number;
          buildsCompared: number;
          buildsDiffering: number;
        };
        expect(result.compared).toBe(640);
        expect(result.firstDifference).toBeNull();
        expect(result.wideCompared).toBeGreaterThan(50);
        expect(result.wideFirstDifference).toBeNull();
        expect(result.scorerCompared).toBe(800);
        expect(result.scorerDiffering).toBe(0);
        expect(result.buildsCompared).toBe(200);
        expect(result.buildsDiffering).toBe(0);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
