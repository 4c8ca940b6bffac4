// Messages between WorkerIndex (main thread) and index-worker.ts: one request per index call, one reply each.
import type { VectorIndex } from '../../services/ports.js';

/** The index methods the worker runs (all but `close`, which ends the worker, and `location`). */
export type WorkerMethod = Exclude<keyof VectorIndex, 'close' | 'location'>;

export interface WorkerRequest {
  id: number;
  method: WorkerMethod;
  args: unknown[];
}

/** Which error the worker's call threw: memdir's two index errors keep their class across the thread. */
export type WorkerErrorKind = 'model' | 'unavailable' | 'other';

export type WorkerReply =
  { id: number; ok: true; result: unknown } | { id: number; ok: false; error: { name: string; kind: WorkerErrorKind; message: string } };
