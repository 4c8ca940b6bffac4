// User isolation on the real Milvus Lite and model, property-style (fast-check, fixed seeds): for random users,
// memories, tags and hostile queries, no search of one user ever returns another user's memory.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { MilvusIndex } from '../../src/adapters/milvus/milvus-index.js';
import { ensureServer } from '../../src/adapters/runtime/managed-server.js';
import { milvusLiteSpec } from '../../src/adapters/runtime/local-servers.js';
import { serverLayout } from '../../src/memory/layout.js';
import { ensureRuntime } from '../../src/adapters/runtime/python-runtime.js';
import { UsageError } from '../../src/errors.js';
import { NO_EXPIRY } from '../../src/memory/records.js';
import type { IndexedChunk } from '../../src/services/ports.js';
import { openTestMemory, type TestMemory } from '../support/harness.js';

const USERS = ['alice', 'bob', 'carol.smith', 'dave@example.com', '张伟', 'u1', 'u-2', 'alice2'];
const WORDS = ['tea', 'coffee', 'berlin', 'munich', 'bike', 'piano', 'violin', 'peanut', 'allergy', 'flight', 'hotel', 'salary', 'password', 'doctor'];
const TAGS = ['home', 'work', 'health', 'travel', 'a"b', 'x\\y', 'or user != "'];
const HOSTILE = ['" or user != "', '") or (user != "alice', '\\', '" or true or "', 'user in ["bob"]', '*', '%', '../bob', "'; --"];

const userArb = fc.constantFrom(...USERS);
const tagsArb = fc.subarray(TAGS, { maxLength: 3 });
const queryArb = fc.oneof(
  fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }).map((w) => w.join(' ')),
  fc.constantFrom(...HOSTILE),
  fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...HOSTILE)).map(([w, h]) => `${w} ${h} ${w}`),
);

describe('isolation at the index: property over random rows', () => {
  let tm: TestMemory;
  let index: MilvusIndex;

  beforeAll(async () => {
    tm = await openTestMemory();
    const runtime = await ensureRuntime({ home: tm.config.runtimeHome, python: tm.config.python });
    const server = await ensureServer(milvusLiteSpec(runtime, serverLayout(`${tm.root}/.mem`), 0));
    index = new MilvusIndex({ address: `127.0.0.1:${server.port}`, token: server.secret, collection: 'isolation_rows' });
    await index.open({ name: 'random', dimension: 4 });
  });
  afterAll(async () => {
    await index?.close();
    await tm?.cleanup();
  });

  it('dense and BM25 searches scoped to a user return only that user’s eligible rows', async () => {
    let run = 0;
    let hits = 0;
    const rowArb = fc.record({
      user: userArb,
      tags: tagsArb,
      words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 6 }),
      vector: fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: 4, maxLength: 4 }),
      status: fc.constantFrom('active' as const, 'superseded' as const),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowArb, { minLength: 1, maxLength: 25 }),
        fc.nat(),
        userArb,
        fc.oneof(fc.constant([] as string[]), tagsArb),
        queryArb,
        async (rows, pick, other, tags, query) => {
          run++;
          // Mostly a user who owns rows in this run (so searches return something), sometimes any user.
          const user = pick % 4 === 0 ? other : rows[pick % rows.length]!.user;
          const chunks: IndexedChunk[] = rows.map((r, i) => ({
            chunkId: `${run.toString(16).padStart(4, '0')}${i.toString(16).padStart(4, '0')}`,
            kind: 'unit',
            textHash: 'h',
            memoryId: `m-${run}-${i}`,
            user: r.user,
            type: 'semantic',
            status: r.status,
            importance: 0.5,
            created: 1,
            updated: 1,
            expires: NO_EXPIRY,
            path: `${r.user}/semantic/m-${run}-${i}.md`,
            heading: '',
            lineStart: 1,
            lineEnd: 1,
            tags: r.tags,
            content: r.words.join(' '),
            vector: r.vector.some((v) => v !== 0) ? r.vector : [1, 0, 0, 0],
          }));
          await index.upsert(chunks);
          const scope = { users: [user], statuses: ['active' as const], ...(tags.length ? { tags } : {}) };
          const dense = await index.search({ mode: 'dense', scope, queryVector: [0.5, -0.5, 0.25, 1], limit: 50 });
          const bm25 = await index.search({ mode: 'bm25', scope, queryText: query, limit: 50 });
          hits += dense.length + bm25.length;
          for (const hit of [...dense, ...bm25]) {
            expect(hit.record.user).toBe(user);
            expect(hit.record.status).toBe('active');
            if (tags.length) expect(hit.record.tags.some((t) => tags.includes(t))).toBe(true);
          }
          // Nothing of this user that is eligible was lost by escaping either (dense returns every eligible row up to the limit).
          const eligible = chunks.filter((c) => c.user === user && c.status === 'active' && (!tags.length || c.tags.some((t) => tags.includes(t))));
          const found = new Set(dense.map((h) => h.record.chunkId));
          for (const c of eligible) expect(found.has(c.chunkId)).toBe(true);
          await index.delete({ users: 'all', memoryIds: chunks.map((c) => c.memoryId) });
        },
      ),
      { numRuns: 30, seed: 4242 },
    );
    expect(hits).toBeGreaterThan(10); // the property was exercised on real results, not on empty ones
  });
});

describe('isolation through memory.search with the real model', () => {
  let tm: TestMemory;
  const owner = new Map<string, string>();

  beforeAll(async () => {
    // A random corpus (fixed seed): 36 memories over the users, some sharing words across users.
    const memories = fc.sample(
      fc.record({
        user: userArb,
        words: fc.array(fc.constantFrom(...WORDS), { minLength: 3, maxLength: 7 }),
        tags: tagsArb.filter((t) => t.every((x) => !/["\\]/.test(x))),
      }),
      { numRuns: 36, seed: 7 },
    );
    const files: Record<string, string> = {};
    memories.forEach((m, i) => {
      const path = `${m.user}/semantic/m${i}.md`;
      owner.set(`${m.user}/semantic/m${i}`, m.user);
      files[path] = `---\ntags: [${m.tags.map((t) => JSON.stringify(t)).join(', ')}]\n---\nNote ${i} of ${m.user}: ${m.words.join(' ')}.\n`;
    });
    tm = await openTestMemory(files);
    expect((await tm.memory.reindex()).errors).toEqual([]);
  });
  afterAll(async () => {
    await tm?.cleanup();
  });

  it('no search of one user returns another user’s memory, whatever the query, tags or mode', async () => {
    let hits = 0;
    await fc.assert(
      fc.asyncProperty(
        userArb,
        queryArb,
        fc.subarray(TAGS, { maxLength: 2 }),
        fc.constantFrom('hybrid' as const, 'dense' as const, 'bm25' as const),
        async (user, query, tags, mode) => {
          const results = await tm.memory.search({ query, user, mode, k: 20, track: false, ...(tags.length ? { tags } : {}) });
          hits += results.length;
          for (const r of results) {
            expect(r.user).toBe(user);
            expect(owner.get(r.id)).toBe(user);
            expect(r.path.startsWith(`${user}/`)).toBe(true);
          }
        },
      ),
      { numRuns: 40, seed: 99 },
    );
    expect(hits).toBeGreaterThan(40);
  });

  it('hostile user ids are refused before any search', async () => {
    for (const user of ['alice" or user != "x', 'alice\\', '../bob', '/etc', 'a'.repeat(65), 'alice\nbob', '']) {
      await expect(tm.memory.search({ query: 'tea', user })).rejects.toBeInstanceOf(UsageError);
    }
    await expect(tm.memory.search({ query: 'tea' })).rejects.toBeInstanceOf(UsageError);
  });
});
