// Writes a memory back to Markdown text with front matter in a stable key order.
import matter from 'gray-matter';

import { KNOWN_KEYS, type MemoryMeta } from './model.js';

/**
 * `only`: write just these known keys (a merge keeps the keys the file had, rather than filling in every default);
 * unknown keys (`extra`) are always written.
 */
export function serializeMemory(meta: MemoryMeta, body: string, only?: ReadonlySet<string>): string {
  const data: Record<string, unknown> = {};
  for (const key of KNOWN_KEYS) {
    const value = meta[key];
    if (value === undefined || (Array.isArray(value) && value.length === 0 && key !== 'tags')) continue;
    if (only && !only.has(key)) continue;
    data[key] = value;
  }
  Object.assign(data, meta.extra);
  const text = body.endsWith('\n') ? body : `${body}\n`;
  return matter.stringify(text, data);
}
