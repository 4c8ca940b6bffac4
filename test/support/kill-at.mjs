// Preloaded into a `mem` process by the crash tests (node --import): counts the command's steps, one before and
// one after each Milvus call, embedding request and atomic file replacement, and at step MEMDIR_KILL_AT sends
// SIGKILL to itself, or to the process recorded in MEMDIR_KILL_PID_FILE (a managed server). Deterministic, unlike
// killing after a delay; MEMDIR_STEPS_FILE receives the number of steps of a run that was not killed. With
// MEMDIR_RESTART_ROOT, the killed server is started again at once (on another port) by `mem server start` in that root.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { BroadcastChannel, isMainThread } from 'node:worker_threads';

import { MilvusClient } from '@zilliz/milvus2-sdk-node';

const killAt = Number(process.env.MEMDIR_KILL_AT ?? Number.POSITIVE_INFINITY);
// Or: the first call of this Milvus method (steps of calls made in parallel are not ordered), or of
// "fetch <part of the URL>" (e.g. "fetch /embeddings": the first embedding request, not a health check).
const [killOn, killOnUrl] = (process.env.MEMDIR_KILL_ON ?? '').split(' ');
const pidFile = process.env.MEMDIR_KILL_PID_FILE;
const stepsFile = process.env.MEMDIR_STEPS_FILE;
const restartRoot = process.env.MEMDIR_RESTART_ROOT;
const MEM_BIN = new URL('../../bin/mem.js', import.meta.url).pathname;

// One count for the whole process: a `mem reindex` makes its Milvus calls in a worker thread (worker-index.ts), where
// this hook is preloaded too. The main thread's counter is shared memory; a worker asks for it on a broadcast
// channel and counts its first call once it has it (calls are async: the wait only delays the call).
// Slot 0 counts the steps, slot 1 says whether the kill happened (once for all threads: a restarted server reuses
// the pid file, and a call of the same method on the other thread must not kill the new server).
let steps = new Int32Array(new SharedArrayBuffer(8));
const channel = new BroadcastChannel('memdir-kill-at');
channel.unref();
let shared = Promise.resolve();
if (isMainThread) {
  channel.onmessage = (event) => {
    if (event.data === 'steps?') channel.postMessage(steps.buffer);
  };
} else {
  shared = new Promise((resolve) => {
    channel.onmessage = (event) => {
      if (!(event.data instanceof SharedArrayBuffer)) return;
      steps = new Int32Array(event.data);
      channel.close();
      resolve();
    };
  });
  channel.postMessage('steps?');
}

function tick(method, url = '') {
  const named = killOn && method === killOn && (!killOnUrl || url.includes(killOnUrl));
  if (Atomics.add(steps, 0, 1) + 1 !== killAt && !named) return;
  if (Atomics.compareExchange(steps, 1, 0, 1) !== 0) return;
  if (pidFile) {
    process.kill(JSON.parse(fs.readFileSync(pidFile, 'utf8')).pid, 'SIGKILL');
    // Blocks this thread until the new server answers: the call then goes on to the old server's address.
    if (restartRoot) execFileSync(process.execPath, [MEM_BIN, '--root', restartRoot, 'server', 'start', '--json'], { stdio: 'ignore' });
  } else {
    process.kill(process.pid, 'SIGKILL');
  }
}

if (stepsFile && isMainThread) process.on('exit', () => fs.writeFileSync(stepsFile, String(Atomics.load(steps, 0))));

function wrap(owner, name) {
  const original = owner[name];
  owner[name] = async function wrapped(...args) {
    await shared;
    tick(name, name === 'fetch' ? String(args[0]?.url ?? args[0]) : '');
    const result = await original.apply(this, args);
    tick();
    return result;
  };
}

for (const name of [
  'hasCollection',
  'createCollection',
  'describeCollection',
  'getLoadState',
  'showPartitions',
  'loadCollection',
  'loadCollectionAsync',
  'getLoadingProgress',
  'dropCollection',
  'insert',
  'upsert',
  // memdir deletes through deleteEntities (the SDK's delete calls it too: counted once either way).
  'deleteEntities',
  'flush',
  'query',
  'count',
  'search',
]) {
  wrap(MilvusClient.prototype, name);
}
wrap(globalThis, 'fetch');
const rename = fs.rename;
fs.rename = function renameCounted(from, to, callback) {
  tick();
  rename(from, to, (err) => {
    if (!err) tick();
    callback(err);
  });
};
syncBuiltinESMExports();
