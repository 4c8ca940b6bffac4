// Worker thread body of WorkerIndex: one MilvusIndex, its calls run one after another in the order they came.
import { parentPort, workerData } from 'node:worker_threads';

import { MemError } from '../../errors.js';
import { MilvusIndex, type MilvusIndexOptions } from './milvus-index.js';
import type { WorkerErrorKind, WorkerReply, WorkerRequest } from './worker-protocol.js';

const port = parentPort;
if (!port) throw new Error('index-worker.js runs as a worker thread (see worker-index.ts)');

const index = new MilvusIndex(workerData as MilvusIndexOptions);
// One at a time: a drop must not interleave with an open still in progress (MilvusIndex keeps per-call state).
let queue: Promise<unknown> = Promise.resolve();

port.on('message', (request: WorkerRequest) => {
  queue = queue.then(async () => {
    let reply: WorkerReply;
    try {
      const method = index[request.method] as (...args: unknown[]) => Promise<unknown>;
      reply = { id: request.id, ok: true, result: await method.apply(index, request.args) };
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      reply = { id: request.id, ok: false, error: { name: e.name, kind: kindOf(e), message: e.message } };
    }
    port.postMessage(reply);
  });
});

/** Which of memdir's errors it was, so the main thread throws the same class (the CLI's exit code and hint follow it). */
function kindOf(err: Error): WorkerErrorKind {
  if (!(err instanceof MemError)) return 'other';
  if (err.code === 'MODEL_MISMATCH') return 'model';
  if (err.code === 'INDEX_UNAVAILABLE') return 'unavailable';
  return 'other';
}
