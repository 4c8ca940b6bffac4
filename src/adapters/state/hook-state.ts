// HookState on disk, under a root's `.mem/hooks/`: one cursor file per captured session (written
// atomically, under a lock of its own so concurrent hooks of one session capture each turn once),
// the inbox of hook inputs waiting for the background capture, and log.jsonl, one line per hook
// run, trimmed to the most recent runs.
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import writeFileAtomic from 'write-file-atomic';

import { sha256 } from '../../memory/hash.js';
import { stateLayoutAt } from '../../memory/layout.js';
import type { CaptureCursor, HookLogEntry, HookState } from '../../services/ports.js';
import { CaptureInbox } from './capture-inbox.js';
import { FileLock } from './file-lock.js';
import { ensureStateDir } from './state-dir.js';

const KEEP = 500;

export class FsHookState implements HookState {
  private readonly lock: FileLock;
  private readonly inbox: CaptureInbox;

  /** `stateDir`: the root's `.mem/` (see stateDirOf). */
  constructor(private readonly stateDir: string) {
    // Not the root's write lock: capture takes that one too, inside this one.
    this.lock = new FileLock(stateLayoutAt(stateDir).hooks, 'capture', 120_000);
    this.inbox = new CaptureInbox(join(stateLayoutAt(stateDir).hooks, 'inbox'));
  }

  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    await this.dir();
    return this.lock.run(fn);
  }

  async hold(text: string): Promise<string> {
    await this.dir();
    return this.inbox.hold(text);
  }

  held(olderThanMs: number): Promise<string[]> {
    return this.inbox.held(olderThanMs);
  }

  release(path: string): Promise<void> {
    return this.inbox.release(path);
  }

  private async dir(): Promise<string> {
    const dir = join(await ensureStateDir(this.stateDir, { createRoot: true }), 'hooks');
    await mkdir(join(dir, 'cursors'), { recursive: true, mode: 0o700 });
    return dir;
  }

  async withCursor<T>(key: string, fn: (cursor: CaptureCursor) => Promise<{ cursor: CaptureCursor; result: T }>): Promise<T> {
    const file = join(await this.dir(), 'cursors', `${sha256(key).slice(0, 24)}.json`);
    return this.lock.run(async () => {
      const saved: Partial<CaptureCursor> = await readFile(file, 'utf8').then(
        (t) => JSON.parse(t) as Partial<CaptureCursor>,
        () => ({}),
      );
      const cursor: CaptureCursor = { lines: Number.isInteger(saved.lines) && saved.lines! >= 0 ? saved.lines! : 0 };
      const { cursor: next, result } = await fn(cursor);
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
