// WriteJournal as one JSON file under `.mem/`, written atomically before a write changes any memory file.
import { rm } from 'node:fs/promises';

import writeFileAtomic from 'write-file-atomic';

import { stateLayoutAt } from '../../memory/layout.js';
import type { PendingWrite, WriteJournal } from '../../services/ports.js';
import { readJsonOrNull } from './read-json.js';
import { ensureStateDir } from './state-dir.js';

export class JsonWriteJournal implements WriteJournal {
  private readonly file: string;

  /** `stateDir`: the root's `.mem/` (see stateDirOf). */
  constructor(private readonly stateDir: string) {
    this.file = stateLayoutAt(stateDir).pendingWrite;
  }

  async begin(write: PendingWrite): Promise<void> {
    await ensureStateDir(this.stateDir);
    // fsync: a machine that dies right after must still find the record that says what to undo.
    await writeFileAtomic(this.file, JSON.stringify(write), { fsync: true, mode: 0o600 });
  }

  async end(): Promise<void> {
    await rm(this.file, { force: true });
  }

  async pending(): Promise<PendingWrite | null> {
    // Atomic replacement makes a torn record impossible; anything unreadable was not written by us.
    const data = (await readJsonOrNull(this.file)) as PendingWrite | null;
    return data && typeof data.before === 'object' && data.before !== null ? data : null;
  }
}
