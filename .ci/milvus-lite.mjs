// CI helper: starts a plain Milvus Lite gRPC server (no memdir launcher, no patches, no secret) from the runtime that
// memdir provisions, so the Milvus contract suite reaches it only through MILVUS_URI, as it would a remote Milvus.
// Prints `MILVUS_URI=<uri> PID=<pid>` once the server listens; the caller stops it with `kill <pid>`.
// Usage: node .ci/milvus-lite.mjs <data-dir> <log-file>
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';

import { loadConfig } from '../dist/config.js';
import { ensureRuntime } from '../dist/adapters/runtime/python-runtime.js';

const [dataDir, logFile] = process.argv.slice(2);
if (!dataDir || !logFile) throw new Error('usage: node .ci/milvus-lite.mjs <data-dir> <log-file>');

const config = loadConfig(process.env, { root: tmpdir() });
const runtime = await ensureRuntime({ home: config.runtimeHome, python: config.python });

// Milvus Lite does not report the port it chose for --port 0: take a free one first.
const port = await new Promise((resolve, reject) => {
  const probe = createServer().once('error', reject);
  probe.listen(0, '127.0.0.1', () => {
    const { port: free } = probe.address();
    probe.close(() => resolve(free));
  });
});

const log = openSync(logFile, 'a');
const child = spawn(
  runtime.python,
  ['-m', 'milvus_lite', 'server', '--data-dir', dataDir, '--host', '127.0.0.1', '--port', String(port), '--max-workers', '4'],
  {
    detached: true,
    stdio: ['ignore', log, log],
  },
);
child.unref();

for (let waited = 0; ; waited += 250) {
  if ((await readFile(logFile, 'utf8')).includes('listening on')) break;
  if (child.exitCode !== null || waited > 120_000) throw new Error(`Milvus Lite did not start; its log: ${logFile}`);
  await new Promise((r) => setTimeout(r, 250));
}
console.log(`MILVUS_URI=http://127.0.0.1:${port} PID=${child.pid}`);
