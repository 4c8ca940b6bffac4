// A unit row for adapter tests against a real Milvus: every field filled with a plain default, the rest overridden.
import { NO_EXPIRY } from '../../src/memory/records.js';
import type { IndexedChunk } from '../../src/services/ports.js';

export function indexRow(id: string, user: string, content: string, vector: number[], extra: Partial<IndexedChunk> = {}): IndexedChunk {
  return {
    chunkId: id,
    kind: 'unit',
    textHash: id,
    memoryId: `m-${id}`,
    user,
    type: 'semantic',
    status: 'active',
    importance: 0.5,
    created: 1,
    updated: 1,
    expires: NO_EXPIRY,
    path: `${user}/semantic/${id}.md`,
    heading: '',
    lineStart: 1,
    lineEnd: 1,
    tags: [],
    content,
    vector,
    ...extra,
  };
}
