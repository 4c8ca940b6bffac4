// `mem reindex` killed with SIGKILL at 20 deterministic points (every few steps of its Milvus calls, embedding
// requests and file replacements, plain and --rebuild): each time, the next run converges to exactly what the files say.
import { spawn } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadConfig, type MemConfig } from '../../src/config.js';
import { openMemory } from '../../src/open-memory.js';
import { MEM_BIN, cleanEnv, runMem } from '../support/harness.js';
import { expectedChunks, indexedChunks } from '../support/index-truth.js';
import { tempRoot } from '../support/temp-root.js';

const KILL_HOOK = fileURLToPath(new URL('../support/kill-at.mjs', import.meta.url));
const TOPICS = ['sailing', 'chess', 'pottery', 'astronomy', 'baking', 'climbing'];
const FILES = 12;

const pathOf = (i: number) => `u${i % 3}/semantic/note-${i}.md`;
const textOf = (i: number, version: number) =>
  `# Note ${i}\n\nUser ${i % 3} talked about ${TOPICS[i % TOPICS.length]} (version ${version}).\n\n## Details\n\nSession ${i} covered the basics and a plan, revision ${version}.\n`;

/** Round r: three files get new text, one is deleted and last round's deleted one comes back. */
async function change(root: string, round: number): Promise<void> {
  for (let k = 0; k < 3; k++) {
    const i = (round * 3 + k) % FILES;
    await writeFile(join(root, pathOf(i)), textOf(i, round));
  }
  await rm(join(root, pathOf(round % FILES)), { force: true });
  const back = (round - 1 + FILES) % FILES;
  if (round > 0) await writeFile(join(root, pathOf(back)), textOf(back, round));
}

/** Runs `mem reindex` with the step counter; killed at `killAt` unless it finishes first. */
function reindexChild(root: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const child = spawn(process.execPath, ['--import', KILL_HOOK, MEM_BIN, '--root', root, 'reindex', '--json', ...args], {
    env: cleanEnv(env),
    stdio: 'ignore',
  });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

async function stepsOf(root: string, args: string[]): Promise<number> {
  const file = join(root, '..', `${root.split('/').pop()}-steps`);
  const run = await reindexChild(root, args, { MEMDIR_STEPS_FILE: file });
  expect(run.code).toBe(0);
  return Number(await readFile(file, 'utf8'));
}

/** The next run repairs everything: in-process, or (`viaCli`) as a new `mem reindex` process. */
async function recoverAndCheck(config: MemConfig, viaCli: boolean): Promise<void> {
  if (viaCli) expect((await runMem(['reindex', '--json'], { root: config.root })).json).toMatchObject({ errors: [] });
  const memory = await openMemory(config);
  try {
    if (!viaCli) expect((await memory.reindex()).errors).toEqual([]);
    const status = await memory.status();
    expect(status.drift).toMatchObject({ inSync: true, unindexed: [], changed: [], deleted: [], rowsMismatch: false });
    const expected = await expectedChunks(config);
    expect(status.chunks).toBe(expected.size);
    const actual = await indexedChunks(config.root);
    expect([...actual.entries()].sort()).toEqual([...expected.entries()].sort());
  } finally {
    await memory.close();
  }
}

describe('reindex killed at deterministic points', () => {
  let root: string;
  let config: MemConfig;

  beforeAll(async () => {
    root = await tempRoot(Object.fromEntries(Array.from({ length: FILES }, (_, i) => [pathOf(i), textOf(i, 0)])), 'memdir-it-kill-');
    config = loadConfig(cleanEnv(), { root });
    expect((await runMem(['reindex', '--json'], { root })).code).toBe(0); // servers up, vectors of version 0 cached
  });
  afterAll(async () => {
    await runMem(['server', 'stop'], { root });
    await rm(root, { recursive: true, force: true });
  });

  it('converges to exactly what the files say after each of 20 kills', async () => {
    let round = 0;
    let kills = 0;
    for (const [args, points] of [
      [[], 16],
      [['--rebuild'], 4],
    ] as const) {
      await change(root, ++round);
      const steps = await stepsOf(root, [...args]);
      expect(steps).toBeGreaterThan(20);
      for (let p = 0; p < points; p++) {
        // Spread over the whole run: from before the first step to after the last.
        const killAt = 1 + Math.floor((p * (steps - 1)) / Math.max(1, points - 1));
        await change(root, ++round);
        const run = await reindexChild(root, [...args], { MEMDIR_KILL_AT: String(killAt) });
        if (run.signal === 'SIGKILL') kills++;
        await recoverAndCheck(config, p === points - 1);
      }
    }
    expect(kills).toBeGreaterThanOrEqual(19); // a kill point past the end of a shorter run lets it finish
  }, 600_000);
});
