// Content hashing: chunk ids and vector-cache keys are derived from content, never from line numbers.
import { createHash } from 'node:crypto';

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * Chunk id: the file path, the embedded text and its occurrence number in the file.
 * Editing one paragraph changes only that chunk's id; chunks below it keep theirs.
 */
export function chunkId(path: string, embedText: string, occurrence: number): string {
  return sha256(`${path}\u0000${embedText}\u0000${occurrence}`).slice(0, 32);
}

/** Key of a cached vector: the text alone (the cache is partitioned by model elsewhere). */
export function textHash(embedText: string): string {
  return sha256(embedText);
}
