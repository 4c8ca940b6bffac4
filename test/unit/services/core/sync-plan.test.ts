// The sync's pure decisions: which files are read, what a batch writes and deletes, which paths are gone.
import { describe, expect, it } from 'vitest';

import type { ChunkRecord } from '../../../../src/memory/records.js';
import type { FileStat, ManifestEntry } from '../../../../src/services/ports.js';
import { batchWrites, differs, gonePaths, unchangedByStat, UNKNOWN_ENTRY, type ParsedFile } from '../../../../src/services/core/sync-plan.js';

const stat = (path: string, size = 10, mtimeMs = 1): FileStat => ({ path, size, mtimeMs }) as FileStat;
const entry = (size = 10, mtimeMs = 1, extra: Partial<ManifestEntry> = {}): ManifestEntry => ({
  ...UNKNOWN_ENTRY,
  unknownRows: undefined,
  size,
  mtimeMs,
  sha: 'x',
  ...extra,
});
const file = (path: string, ids: string[]): ParsedFile => ({
  stat: stat(path),
  sha: 'new',
  records: ids.map((chunkId) => ({ chunkId, textHash: chunkId }) as ChunkRecord),
  entry: entry(),
});

describe('sync plan', () => {
  it('reads a file only when its size or modification time differs from its entry', () => {
    expect(unchangedByStat(entry(10, 1), stat('a', 10, 1))).toBe(true);
    expect(unchangedByStat(entry(10, 1), stat('a', 11, 1))).toBe(false);
    expect(unchangedByStat(entry(10, 1), stat('a', 10, 2))).toBe(false);
    expect(unchangedByStat(undefined, stat('a'))).toBe(false);
  });

  it('a sync will write when a file is new or changed, or an entry lost its file', () => {
    const previous = new Map([['a', entry()]]);
    expect(differs([stat('a')], previous, undefined)).toBe(false);
    expect(differs([stat('a', 12)], previous, undefined)).toBe(true);
    expect(differs([stat('a'), stat('b')], previous, undefined)).toBe(true);
    expect(differs([], previous, undefined)).toBe(true);
    expect(differs([], previous, ['a'])).toBe(true);
  });

  it('a batch inserts new paths, upserts known ones and deletes what the new version dropped', () => {
    const before = new Map([
      ['known.md', entry()],
      ['lost-list.md', entry()],
      ['killed.md', entry(10, 1, { unknownRows: true })],
    ]);
    const oldChunks = new Map([
      ['known.md', [{ id: 'k1' }, { id: 'k2' }]],
      ['killed.md', [{ id: 'x1' }]],
    ]);
    const writes = batchWrites(
      [file('new.md', ['n1']), file('known.md', ['k1']), file('lost-list.md', ['l1']), file('killed.md', ['x2'])],
      before,
      before,
      oldChunks,
    );
    expect(writes.inserts.map((r) => r.chunkId)).toEqual(['n1']);
    expect(writes.upserts.map((r) => r.chunkId)).toEqual(['k1', 'l1', 'x2']);
    expect(writes.staleIds).toEqual(['k2']);
    // Rows no list describes go by path, but the file's new ones.
    expect(writes.unknownPaths).toEqual(['lost-list.md', 'killed.md']);
    expect(writes.unknownKeep).toEqual(['l1', 'x2']);
    expect(writes.deleted).toBe(2); // k2, and x1 of the killed write's list
  });

  it('the gone paths are the entries without a file; a full no-op computes nothing', () => {
    const previous = new Map([
      ['a', entry()],
      ['b', entry()],
    ]);
    expect(gonePaths({ files: [stat('a'), stat('b')], known: 2 }, previous, [], undefined)).toEqual([]);
    expect(gonePaths({ files: [stat('a')], known: 1 }, previous, [], undefined)).toEqual(['b']);
    expect(gonePaths({ files: [], known: 0 }, previous, [], ['b', 'b'])).toEqual(['b']);
    expect(gonePaths({ files: [stat('a')], known: 0 }, null, ['a', 'z'], undefined)).toEqual(['z']);
  });
});
