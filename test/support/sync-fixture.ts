// A sync fixture for unit tests: a temp root with the real file, manifest, vector-cache and lock adapters, and fake index/embedder.
import { readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterEach } from 'vitest';

import { FsMemoryFiles } from '../../src/adapters/files/fs-memory-files.js';
import type { MemoryDeps } from '../../src/services/core/deps.js';
import { HashEmbedder, InMemoryIndex } from './fakes.js';
import { unitDeps } from './unit-deps.js';
import { tempRoot } from './temp-root.js';

const roots: string[] = [];

afterEach(async () => {
  await Promise.all(roots.splice(0).map((r) => rm(r, { recursive: true, force: true })));
});

export class CountingFiles extends FsMemoryFiles {
  reads: string[] = [];
  override async read(path: string): Promise<Uint8Array> {
    this.reads.push(path);
    return super.read(path);
  }
}

export interface Setup {
  root: string;
  deps: MemoryDeps;
  index: InMemoryIndex;
  embedder: HashEmbedder;
  files: CountingFiles;
}

export async function setup(tree: Record<string, string | Uint8Array>, overrides: Partial<MemoryDeps> = {}): Promise<Setup> {
  const root = await tempRoot(tree);
  roots.push(root);
  const index = new InMemoryIndex();
  const embedder = new HashEmbedder(8);
  const files = new CountingFiles(root);
  // The unit-test deps, with small chunks, batches and file limit so the edge cases are cheap to reach.
  const deps: MemoryDeps = unitDeps(root, { files, index, embedder, chunking: { maxChars: 80 }, embedBatchSize: 2, maxFileBytes: 4096, ...overrides });
  return { root, deps, index, embedder, files };
}

let clock = Date.now() / 1000 + 60;
/** Rewrites a file and moves its mtime forward, so a same-size edit is still seen as a change. */
export async function edit(root: string, path: string, content: string | Uint8Array): Promise<void> {
  await writeFile(join(root, path), content);
  clock += 10;
  await utimes(join(root, path), clock, clock);
}

/** Bytes and mtime of every file under the root, except the state folder. */
export async function snapshot(root: string): Promise<Record<string, { bytes: string; mtimeMs: number }>> {
  const out: Record<string, { bytes: string; mtimeMs: number }> = {};
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  for (const e of entries) {
    if (!e.isFile()) continue;
    const abs = join(e.parentPath, e.name);
    const rel = abs.slice(root.length + 1);
    if (rel.startsWith('.mem/') || rel === '.mem') continue;
    out[rel] = { bytes: (await readFile(abs)).toString('base64'), mtimeMs: (await stat(abs)).mtimeMs };
  }
  return out;
}
