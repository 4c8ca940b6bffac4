// ManifestStore as one JSON file under `.mem/`, replaced atomically on save, plus an append-only log of
// the paths a sync is writing since that save.
import { access, appendFile, readFile, rm } from 'node:fs/promises';
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
  private readonly pendingFile: string;

  /** `scope` separates manifests of different indexes (e.g. embedding model) of one root; `stateDir` is its `.mem/`. */
  constructor(
    private readonly stateDir: string,
    scope: string,
  ) {
    this.file = stateLayoutAt(stateDir).manifest(scope);
    this.pendingFile = `${this.file}.pending`;
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
    const entries = new Map(Object.entries(data.files));
    // A path written after the last save may have any rows in the index: its entry vouches for none of them.
    for (const path of await this.pendingPaths()) {
      const known = entries.get(path);
      entries.set(path, { ...(known ?? UNKNOWN), size: -1, mtimeMs: -1, sha: '', unknownRows: true });
    }
    return entries;
  }

  async markPending(paths: string[]): Promise<void> {
    if (paths.length === 0) return;
    await ensureStateDir(this.stateDir);
    // One JSON string per line: a line cut short by a kill fails to parse and is skipped (its batch had not started writing).
    await appendFile(this.pendingFile, paths.map((p) => `${JSON.stringify(p)}\n`).join(''));
  }

  async clear(): Promise<void> {
    await rm(this.file, { force: true });
    await rm(this.pendingFile, { force: true });
  }

  async save(entries: Map<string, ManifestEntry>): Promise<void> {
    await ensureStateDir(this.stateDir);
    const data = { version: VERSION, files: Object.fromEntries(entries) };
    await writeFileAtomic(this.file, JSON.stringify(data));
    // Only once the entries are saved: killed in between, the pending paths are re-read needlessly, never trusted wrongly.
    await rm(this.pendingFile, { force: true });
  }

  private async pendingPaths(): Promise<string[]> {
    let text: string;
    try {
      text = await readFile(this.pendingFile, 'utf8');
    } catch {
      return [];
    }
    const paths: string[] = [];
    for (const line of text.split('\n')) {
      try {
        const path = JSON.parse(line) as unknown;
        if (typeof path === 'string') paths.push(path);
      } catch {
        // An empty or torn line.
      }
    }
    return paths;
  }
}

const UNKNOWN: ManifestEntry = { size: -1, mtimeMs: -1, sha: '', memoryId: '', user: '', type: 'semantic', status: 'active', chunks: [] };
