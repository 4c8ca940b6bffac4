// Lifecycle changes are file changes: rewrite a memory's front matter (and optionally its body) atomically.
import type { MemoryMeta } from '../../memory/model.js';
import { serializeMemory } from '../../memory/serialize.js';
import { loadDoc } from './documents.js';
import type { SyncDeps } from './sync.js';

export async function rewriteMemory(deps: SyncDeps, path: string, change: (meta: MemoryMeta) => MemoryMeta, body?: string): Promise<MemoryMeta> {
  const doc = await loadDoc(deps, path);
  const meta = change({ ...doc.meta, tags: [...doc.meta.tags], extra: { ...doc.meta.extra } });
  await deps.files.write(path, serializeMemory(meta, body ?? doc.body));
  return meta;
}
