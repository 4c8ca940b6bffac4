// HookState on disk, under a root's `.mem/hooks/`: one cursor file per captured session (written
// atomically, under a lock of its own so concurrent hooks of one session capture each turn once),
// the inbox of hook inputs waiting for the background capture, and log.jsonl, one line per hook
// run, trimmed to the most recent runs.
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { sha256 } from '../../memory/hash.js';
import { stateLayoutAt } from '../../memory/layout.js';
import type { CaptureCursor, HookLogEntry, HookState } from '../../services/ports.js';
import type { CaptureInbox } from './capture-inbox.js';
import type { FileLock } from './file-lock.js';
import { ensureStateDir } from './state-dir.js';

const KEEP = 500;

export class FsHookState implements HookState {
  // Loaded on first use: the prompt hook only logs, and must not pay for the lock and inbox modules on every prompt.
  private lockP?: Promise<FileLock>;
  private inboxP?: Promise<CaptureInbox>;

  /** `stateDir`: the root's `.mem/` (see stateDirOf). */
  constructor(private readonly stateDir: string) {}

  // Not the root's write lock: capture takes that one too, inside this one.
  private lock(): Promise<FileLock> {
    return (this.lockP ??= import('./file-lock.js').then((m) => new m.FileLock(stateLayoutAt(this.stateDir).hooks, 'capture', 120_000)));
  }

  private inbox(): Promise<CaptureInbox> {
    return (this.inboxP ??= import('./capture-inbox.js').then((m) => new m.CaptureInbox(join(stateLayoutAt(this.stateDir).hooks, 'inbox'))));
  }

  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    await this.dir();
    return (await this.lock()).run(fn);
  }

  async hold(text: string): Promise<string> {
    await this.dir();
    return (await this.inbox()).hold(text);
  }

  async held(olderThanMs: number): Promise<string[]> {
    return (await this.inbox()).held(olderThanMs);
  }

  async release(path: string): Promise<void> {
    return (await this.inbox()).release(path);
  }

  private async dir(): Promise<string> {
    const dir = join(await ensureStateDir(this.stateDir, { createRoot: true }), 'hooks');
    await mkdir(join(dir, 'cursors'), { recursive: true, mode: 0o700 });
    return dir;
  }

  async withCursor<T>(key: string, fn: (cursor: CaptureCursor) => Promise<{ cursor: CaptureCursor; result: T }>): Promise<T> {
    const file = join(await this.dir(), 'cursors', `${sha256(key).slice(0, 24)}.json`);
    const lock = await this.lock();
    return lock.run(async () => {
      const saved: Partial<CaptureCursor> = await readFile(file, 'utf8').then(
        (t) => JSON.parse(t) as Partial<CaptureCursor>,
        () => ({}),
      );
      const cursor: CaptureCursor = { lines: Number.isInteger(saved.lines) && saved.lines! >= 0 ? saved.lines! : 0 };
      const { cursor: next, result } = await fn(cursor);
      const { default: writeFileAtomic } = await import('write-file-atomic');
      await writeFileAtomic(file, `${JSON.stringify({ key, ...next, updated: new Date().toISOString() })}\n`, { mode: 0o600 });
      return result;
    });
  }

  async log(entry: HookLogEntry): Promise<void> {
    const file = join(await this.dir(), 'log.jsonl');
    await appendFile(file, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
    const lines = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
    // Trimmed now and then, not at every run: a rewrite racing an append could lose that line.
    if (lines.length > KEEP * 2) await writeFile(file, `${lines.slice(-KEEP).join('\n')}\n`, { mode: 0o600 });
  }

  async entries(): Promise<HookLogEntry[]> {
    const text = await readFile(stateLayoutAt(this.stateDir).hookLog, 'utf8').catch(() => '');
    return text.split('\n').flatMap((line) => {
      try {
        return line ? [JSON.parse(line) as HookLogEntry] : [];
      } catch {
        return []; // a line cut short by a kill
      }
    });
  }
}
