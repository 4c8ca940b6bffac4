// The agent hooks' log of a memory root (`<root>/.mem/hooks/log.jsonl`), read as its entries (none when absent).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { HookLogEntry } from '../../src/services/ports.js';

export async function hookLog(root: string): Promise<HookLogEntry[]> {
  const text = await readFile(join(root, '.mem', 'hooks', 'log.jsonl'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as HookLogEntry);
}
