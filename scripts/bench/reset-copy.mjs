// Puts a copy of a kept bench root back where the bench's full index starts (issue 13): every collection of its
// Milvus Lite dropped and the manifest gone, the vector cache kept; the next `mem reindex` is then that full index.
//
// Usage (servers of the copy running, e.g. after a first `mem reindex`; never on the kept root itself):
//   MEMDIR_SERVER_HOME=/tmp/x/r50k-servers node scripts/bench/reset-copy.mjs /tmp/x/r50k
//   MEMDIR_SERVER_HOME=/tmp/x/r50k-servers /usr/bin/time -f 'MAXRSS %M' node bin/mem.js --root /tmp/x/r50k --json reindex
import { readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { MilvusClient } from '@zilliz/milvus2-sdk-node';

const root = process.argv[2];
if (!root) throw new Error('usage: node scripts/bench/reset-copy.mjs ROOT');
const home = process.env.MEMDIR_SERVER_HOME ?? `${root}-servers`;
const server = JSON.parse(await readFile(join(home, 'servers', 'milvus-lite.json'), 'utf8'));
const client = new MilvusClient({
  address: `127.0.0.1:${server.port}`,
  token: server.secret,
  timeout: 600_000,
  // As memdir's adapter: Milvus Lite drops connections that ping.
  channelOptions: { 'grpc.keepalive_time_ms': 2147483647, 'grpc.keepalive_permit_without_calls': 0 },
});
for (const { name } of (await client.showCollections()).data) {
  const t0 = Date.now();
  const res = await client.dropCollection({ collection_name: name });
  process.stderr.write(`[reset] dropped ${name}: ${res.error_code ?? res.code} (${Date.now() - t0} ms)\n`);
}
await client.closeConnection();
// The manifest (base, journal, chunk lists, index binding, pending log) and what only later commands write.
const state = join(root, '.mem');
for (const name of await readdir(state)) {
  if (name.startsWith('manifest-') || name === 'purge-pending' || name === 'access.json') await rm(join(state, name), { recursive: true, force: true });
}
process.stderr.write(`[reset] left in .mem: ${(await readdir(state)).join(' ')}\n`);
