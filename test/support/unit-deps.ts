// MemoryDeps for unit tests of use cases: real files, manifest, vector cache, lock and access stats in a
// temp root; an in-memory index, a hash embedder, a recording audit log and a fixed clock (all overridable).
import { join } from 'node:path';

import { FsMemoryFiles } from '../../src/adapters/files/fs-memory-files.js';
import { FileLock } from '../../src/adapters/state/file-lock.js';
import { LmdbVectorCache } from '../../src/adapters/state/lmdb-vector-cache.js';
import { JsonAccessStats } from '../../src/adapters/state/json-access-stats.js';
import { JsonManifest } from '../../src/adapters/state/json-manifest.js';
import { JsonWriteJournal } from '../../src/adapters/state/json-write-journal.js';
import { STATE_DIR } from '../../src/memory/layout.js';
import { FileStateResidue } from '../../src/adapters/state/state-residue.js';
import type { MemoryDeps } from '../../src/services/core/deps.js';
import type { AuditLog } from '../../src/services/ports.js';
import { DEFAULT_LIFECYCLE } from '../../src/memory/lifecycle.js';
import { DEFAULT_FUSION } from '../../src/services/retrieval/fuse.js';
import { DEFAULT_SCORING } from '../../src/services/retrieval/rescore.js';
import { HashEmbedder, InMemoryIndex } from './fakes.js';

export interface RecordingAudit extends AuditLog {
  commits: { paths: string[]; message: string }[];
}

export function recordingAudit(): RecordingAudit {
  const commits: RecordingAudit['commits'] = [];
  return {
    enabled: true,
    commits,
    commit: async (paths, message) => void commits.push({ paths, message }),
    history: async () => [],
    purge: async () => {},
    // Everything a recorded commit named counts as committed; the rest (never committed) does not.
    uncommitted: async (paths) => (paths ?? []).filter((p) => !commits.some((c) => c.paths.includes(p))),
    ignored: async () => [],
    unstage: async () => {},
    purgeScope: async () => null,
    author: async () => 'Test <test@localhost>',
    objectsContaining: async () => ({ objects: 0, hits: 0 }),
  };
}

export function unitDeps(root: string, overrides: Partial<MemoryDeps> = {}): MemoryDeps {
  return {
    files: new FsMemoryFiles(root),
    index: new InMemoryIndex(),
    embedder: new HashEmbedder(8),
    cache: new LmdbVectorCache(join(root, STATE_DIR), 'hash-test-8'),
    manifest: new JsonManifest(join(root, STATE_DIR), 'test'),
    lock: new FileLock(join(root, '.mem'), 'write', 10_000),
    chunking: { maxChars: 1500 },
    defaultUser: 'default',
    embedBatchSize: 8,
    maxFileBytes: 1 << 20,
    audit: recordingAudit(),
    journal: new JsonWriteJournal(join(root, STATE_DIR)),
    access: new JsonAccessStats(join(root, STATE_DIR)),
    residue: new FileStateResidue(join(root, STATE_DIR)),
    scoring: DEFAULT_SCORING,
    fusion: DEFAULT_FUSION,
    lifecycle: DEFAULT_LIFECYCLE,
    now: () => new Date('2026-12-01T12:00:00.000Z'),
    ...overrides,
  };
}
