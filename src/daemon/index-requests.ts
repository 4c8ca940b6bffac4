// Runs one index call of a `mem` process (a small sync's writes, `mem add`'s lookups) on the index of a root the
// daemon has open: its vectors decoded, the call made, the answer made plain JSON.
import { UsageError } from '../errors.js';
import type { IndexInventory, IndexOpener, IndexScope, IndexSearchRequest, IndexSearcher, IndexWriter, IndexedChunk, LineSpan } from '../services/ports.js';
import { decodeVector, type IndexCall } from '../adapters/daemon/protocol.js';

/**
 * The roles the daemon serves to `mem` processes: opening, the small writes and lookups, and a count; a rebuild, a
 * compaction or a scan of every row is made by the process's own client (adapters/daemon/daemon-index.ts).
 */
export type ServedIndex = IndexOpener & IndexWriter & IndexSearcher & Pick<IndexInventory, 'count' | 'location'>;

type EncodedRow = Omit<IndexedChunk, 'vector'> & { vector: string };

/** A vector that is not base64 of float32s is a usage error (the client then writes itself). */
function vectorOf(text: string): number[] {
  const vector = decodeVector(text);
  if (!vector) throw new UsageError('malformed index request: a vector is not base64 of float32 values');
  return vector;
}

const rowsOf = (rows: EncodedRow[]): IndexedChunk[] => rows.map((r) => ({ ...r, vector: vectorOf(r.vector) }));

/** The call's answer: undefined for writes, the hits, records or count for reads. Errors are the index's own. */
export async function runIndexCall(index: ServedIndex, call: IndexCall): Promise<unknown> {
  const a = call.args;
  switch (call.method) {
    case 'open':
      // Only a boolean recheck is passed on: anything else there is ignored, as before the option existed.
      return index.open(
        a[0] as { name: string; dimension: number },
        (a[1] as { recheck?: unknown } | undefined)?.recheck === true ? { recheck: true } : undefined,
      );
    case 'upsert':
      return index.upsert(rowsOf(a[0] as EncodedRow[]));
    case 'insert':
      return index.insert(rowsOf(a[0] as EncodedRow[]));
    case 'deleteChunks':
      return index.deleteChunks(a[0] as string[]);
    case 'deleteStale':
      return index.deleteStale(a[0] as string[], a[1] as string[]);
    case 'delete':
      return index.delete(a[0] as IndexScope);
    case 'flush':
      return index.flush();
    case 'search': {
      const request = a[0] as IndexSearchRequest | (Omit<Extract<IndexSearchRequest, { mode: 'dense' }>, 'queryVector'> & { queryVector: string });
      return index.search(
        request.mode === 'dense' && typeof request.queryVector === 'string'
          ? { ...request, queryVector: vectorOf(request.queryVector) }
          : (request as IndexSearchRequest),
      );
    }
    case 'unitsWithin':
      return index.unitsWithin(a[0] as IndexScope, a[1] as LineSpan[], a[2] as number);
    case 'count':
      return index.count(a[0] as IndexScope);
  }
}
