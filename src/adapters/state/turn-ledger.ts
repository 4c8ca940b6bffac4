// TurnLedger on disk. What this root captured: `.mem/hooks/turns.tsv`, one "<turn key>\t<day log>" line per turn
// (owner-only, never committed). What it was told to forget: `<root>/.forgotten/<hash>.txt`, one turn key per
// line, committed with the forget, so that a clone elsewhere refuses those turns too. Keys are hashes: neither
// file holds a word of a conversation.
import { createHash } from 'node:crypto';
import { appendFile, chmod, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { stateLayoutAt } from '../../memory/layout.js';
import type { CapturedTurn, TurnLedger } from '../../services/ports.js';
import { ensureStateDir, makeBelow, makeStateFolder } from './state-dir.js';

/** The folder of tombstones, relative to the root. */
export const FORGOTTEN_DIR = '.forgotten';

const HEADER = '# memdir: conversation turns forgotten from this memory (hashes only); capture never stores them again.\n';

// A day log too large for one file goes on in `<day>-2.md`, `<day>-3.md`…: a forget of any part names the day.
const dayOf = (path: string) => path.replace(/(\d{4}-\d{2}-\d{2})(?:-\d+)?\.md$/, '$1.md');

export class FsTurnLedger implements TurnLedger {
  constructor(
    private readonly root: string,
    private readonly stateDir: string,
  ) {}

  private get file(): string {
    return join(stateLayoutAt(this.stateDir).hooks, 'turns.tsv');
  }

  private async captured(): Promise<[string, string][]> {
    const text = await readFile(this.file, 'utf8').catch(() => '');
    return text.split('\n').flatMap((line) => {
      const [key, path] = line.split('\t');
      return key && path ? [[key, path] as [string, string]] : [];
    });
  }

  async known(): Promise<Set<string>> {
    const keys = new Set((await this.captured()).map(([key]) => key));
    const dir = join(this.root, FORGOTTEN_DIR);
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      if (!name.endsWith('.txt')) continue;
      const text = await readFile(join(dir, name), 'utf8').catch(() => '');
      for (const line of text.split('\n')) if (line && !line.startsWith('#')) keys.add(line.trim());
    }
    return keys;
  }

  async record(turns: CapturedTurn[]): Promise<void> {
    if (turns.length === 0) return;
    await ensureStateDir(this.stateDir);
    const dir = stateLayoutAt(this.stateDir).hooks;
    await makeStateFolder(dir);
    await appendFile(this.file, turns.map((t) => `${t.key}\t${dayOf(t.path)}\n`).join(''), { mode: 0o600 });
    await chmod(this.file, 0o600);
  }

  async forget(paths: string[]): Promise<string[]> {
    const days = new Set(paths.map(dayOf));
    const keys = [...new Set((await this.captured()).filter(([, path]) => days.has(path)).map(([key]) => key))].sort();
    if (keys.length === 0) return [];
    // Named by its content: the same forget on two machines writes the same file, and a merge of them has nothing to join.
    const name = `${createHash('sha256').update(keys.join('\n')).digest('hex').slice(0, 16)}.txt`;
    await makeBelow(this.root, join(this.root, FORGOTTEN_DIR));
    await writeFile(join(this.root, FORGOTTEN_DIR, name), `${HEADER}${keys.join('\n')}\n`);
    return [`${FORGOTTEN_DIR}/${name}`];
  }
}
