// Where a forgotten text could still be found, read byte by byte as a copy would give it away: a folder's files,
// a root's state (its `.mem/` and the shared Milvus Lite data) and every object of a git repository.
import { execFileSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { loadConfig } from '../../src/config.js';
import { serverLayout } from '../../src/memory/layout.js';
import { cleanEnv } from './harness.js';

/** Files under a folder holding any of the needles (relative paths). */
export async function holding(dir: string, needles: Buffer[]): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  const hits: string[] = [];
  for (const e of entries.filter((x) => x.isFile())) {
    const bytes = await readFile(join(e.parentPath, e.name)).catch(() => null);
    if (bytes && needles.some((n) => bytes.includes(n))) hits.push(join(e.parentPath, e.name).slice(dir.length + 1));
  }
  return hits;
}

/** Files of the root's state holding any needle: under `.mem/`, and (as `milvus/...`) anywhere in the shared Milvus Lite data. */
export async function stateHolding(root: string, needles: Buffer[]): Promise<string[]> {
  const shared = serverLayout(loadConfig(cleanEnv(), { root }).serverHome).milvusData;
  return [...(await holding(join(root, '.mem'), needles)), ...(await holding(shared, needles)).map((f) => `milvus/${f}`)];
}

/** How many objects of the repository's store (loose, packed, reachable or not) contain the needle; `repo` may be a bare one. */
export function objectsHolding(repo: string, needle: string): number {
  const out = execFileSync('git', ['cat-file', '--batch-all-objects', '--batch', '--unordered'], { cwd: repo, maxBuffer: 1 << 28 });
  let hits = 0;
  for (let at = 0; at < out.length;) {
    const eol = out.indexOf(0x0a, at);
    const size = Number(out.subarray(at, eol).toString('latin1').split(' ')[2]);
    if (out.subarray(eol + 1, eol + 1 + size).includes(Buffer.from(needle))) hits++;
    at = eol + 1 + size + 1;
  }
  return hits;
}
