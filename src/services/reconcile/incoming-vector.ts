// The vector a new memory is reconciled by, embedded together with the unit and window texts the sync will index and put in
// the vector cache under the keys the sync looks up: an add embeds its text once, not once here and again there.
import { embedTextOf } from '../../memory/chunk.js';
import { textHash } from '../../memory/hash.js';
import { unitsAndWindows } from '../../memory/units.js';
import type { MemoryDeps } from '../core/deps.js';

/** `text`: the memory's body as the add writes it. */
export async function incomingVector(deps: Pick<MemoryDeps, 'embedder' | 'cache' | 'chunking'>, text: string): Promise<number[]> {
  // The same units and windows the sync cuts from the file's body (the line numbers, which the key ignores, aside).
  const { units, windows } = unitsAndWindows(text, 1, deps.chunking);
  const chunks = [...new Set([...units, ...windows].map(embedTextOf))];
  // One chunk: it is the text (trimmed), and its vector compares as well as the text's. Several: the whole text too.
  const comparedAlone = chunks.length !== 1;
  const vectors = await deps.embedder.embedDocuments(comparedAlone ? [text, ...chunks] : chunks);
  const chunkVectors = comparedAlone ? vectors.slice(1) : vectors;
  await deps.cache.putMany(new Map(chunks.map((c, i) => [textHash(c), chunkVectors[i]!])));
  return vectors[0]!;
}
