// The vector a new memory is reconciled by, embedded together with the chunk texts the sync will index and put in
// the vector cache under the keys the sync looks up: an add embeds its text once, not once here and again there.
import { chunkMarkdown, embedTextOf } from '../../memory/chunk.js';
import { textHash } from '../../memory/hash.js';
import type { MemoryDeps } from '../core/deps.js';

/** `text`: the memory's body as the add writes it. */
export async function incomingVector(deps: Pick<MemoryDeps, 'embedder' | 'cache' | 'chunking'>, text: string): Promise<number[]> {
  // The same chunking the sync applies to the file's body (the line numbers, which the key ignores, aside).
  const chunks = [...new Set(chunkMarkdown(text, 1, deps.chunking).map(embedTextOf))];
  // One chunk: it is the text (trimmed), and its vector compares as well as the text's. Several: the whole text too.
  const comparedAlone = chunks.length !== 1;
  const vectors = await deps.embedder.embedDocuments(comparedAlone ? [text, ...chunks] : chunks);
  const chunkVectors = comparedAlone ? vectors.slice(1) : vectors;
  await deps.cache.putMany(new Map(chunks.map((c, i) => [textHash(c), chunkVectors[i]!])));
  return vectors[0]!;
}
