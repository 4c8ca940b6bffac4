// Lifecycle changes are file changes: rewrite a memory's front matter (and optionally its body) atomically.
import type { MemoryMeta } from '../../memory/model.js';
import { serializeMemory } from '../../memory/serialize.js';
import { loadDocAndBytes } from './documents.js';
import type { SyncDeps } from './sync.js';

const BOM = [0xef, 0xbb, 0xbf];

/**
 * How the person wrote the file: a byte order mark, CRLF line endings (its first line break). A rewrite keeps both, so
 * `git diff` shows the lines that changed rather than every line of a file from a Windows editor.
 */
function styleOf(bytes: Uint8Array): { bom: boolean; crlf: boolean } {
  const bom = BOM.every((b, i) => bytes[i] === b);
  const lf = bytes.indexOf(0x0a);
  return { bom, crlf: lf > 0 && bytes[lf - 1] === 0x0d };
}

export async function rewriteMemory(deps: SyncDeps, path: string, change: (meta: MemoryMeta) => MemoryMeta, body?: string): Promise<MemoryMeta> {
  const { doc, bytes } = await loadDocAndBytes(deps, path);
  const style = styleOf(bytes);
  const meta = change({ ...doc.meta, tags: [...doc.meta.tags], extra: { ...doc.meta.extra } });
  const text = serializeMemory(meta, body ?? doc.body);
  await deps.files.write(path, `${style.bom ? '\ufeff' : ''}${style.crlf ? text.replace(/\r?\n/g, '\r\n') : text}`);
  return meta;
}
