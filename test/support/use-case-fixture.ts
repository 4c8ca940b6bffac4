// A memory root for unit tests of use cases: files from an object literal, unit deps over them (real files,
// manifest, cache and lock; in-memory index; hash embedder; recording audit log), and small file helpers.
import { readFile, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import { afterEach } from 'vitest';

import type { MemoryDeps } from '../../src/services/core/deps.js';
import { InMemoryIndex } from './fakes.js';
import { tempRoot } from './temp-root.js';
import { recordingAudit, unitDeps, type RecordingAudit } from './unit-deps.js';

const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((r) => rm(r, { recursive: true, force: true })));
});

/** A memory file's text with front matter (created/updated fixed before the unit deps' clock). */
export function memoryFile(meta: { id: string; user: string; type?: string } & Record<string, string | number | string[]>, body: string): string {
  const lines = Object.entries({ type: 'semantic', created: '2026-11-01T00:00:00.000Z', updated: '2026-11-01T00:00:00.000Z', ...meta }).map(([k, v]) =>
    Array.isArray(v) ? `${k}: [${v.join(', ')}]` : `${k}: ${v}`,
  );
  return `---\n${lines.join('\n')}\n---\n${body}\n`;
}

export interface UseCaseRoot {
  root: string;
  deps: MemoryDeps;
  index: InMemoryIndex;
  audit: RecordingAudit;
  read(path: string): Promise<string>;
  exists(path: string): Promise<boolean>;
  write(path: string, text: string): Promise<void>;
}

export async function useCaseRoot(files: Record<string, string> = {}, overrides: Partial<MemoryDeps> = {}): Promise<UseCaseRoot> {
  const root = await tempRoot(files);
  roots.push(root);
  const index = new InMemoryIndex();
  const audit = recordingAudit();
  const deps = unitDeps(root, { index, audit, ...overrides });
  return {
    root,
    deps,
    index,
    audit,
    read: (path) => readFile(join(root, path), 'utf8'),
    exists: (path) =>
      stat(join(root, path)).then(
        () => true,
        () => false,
      ),
    write: async (path, text) => {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), text);
    },
  };
}
