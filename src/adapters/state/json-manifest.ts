// ManifestStore as one JSON file under `.mem/`, replaced atomically on save.
import { access, rm } from 'node:fs/promises';
import writeFileAtomic from 'write-file-atomic';

import type { ManifestEntry, ManifestStore } from '../../services/ports.js';
import { stateLayoutAt } from '../../memory/layout.js';
import { readJsonOrNull } from './read-json.js';
import { ensureStateDir } from './state-dir.js';

// 2: entries carry lifecycle links (key, source, supersedes, sources); an older manifest means a full re-scan.
// 3: status is the effective one (a hand-written correction overrides the file's), with the file's own
//    in fileStatus, and the back links superseded_by / consolidated_into for `mem doctor`.
const VERSION = 3;

export class JsonManifest implements ManifestStore {
  private readonly file: string;

  /** `scope` separates manifests of different indexes (e.g. embedding model) of one root; `stateDir` is its `.mem/`. */
  constructor(
    private readonly stateDir: string,
    scope: string,
  ) {
    this.file = stateLayoutAt(stateDir).manifest(scope);
  }

  async exists(): Promise<boolean> {
    return access(this.file).then(
      () => true,
      () => false,
    );
  }

  async load(): Promise<Map<string, ManifestEntry> | null> {
    const data = (await readJsonOrNull(this.file)) as { version?: number; files?: Record<string, ManifestEntry> } | null;
    // A missing, damaged or older manifest only costs a full re-scan; the files are the truth.
    if (!data || data.version !== VERSION || typeof data.files !== 'object' || data.files === null) return null;
    return new Map(Object.entries(data.files));
  }

  async clear(): Promise<void> {
    await rm(this.file, { force: true });
  }

  async save(entries: Map<string, ManifestEntry>): Promise<void> {
    await ensureStateDir(this.stateDir);
    const data = { version: VERSION, files: Object.fromEntries(entries) };
    await writeFileAtomic(this.file, JSON.stringify(data));
  }
}
