// Exact convergence checks for crash tests: the chunks the files say the index must hold, and the chunks it holds.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { MilvusClient, logger as sdkLogger } from '@zilliz/milvus2-sdk-node';

import { FsMemoryFiles } from '../../src/adapters/files/fs-memory-files.js';
import { loadConfig, type MemConfig } from '../../src/config.js';
import { serverLayout } from '../../src/memory/layout.js';
import { cleanEnv } from './harness.js';
import { decodeMemoryText } from '../../src/memory/decode.js';
import { parseMemory } from '../../src/memory/parse.js';
import { toChunkRecords } from '../../src/memory/records.js';

/** chunk id -> path, computed from the files alone (every file must be valid). */
export async function expectedChunks(config: MemConfig): Promise<Map<string, string>> {
  const files = new FsMemoryFiles(config.root);
  const out = new Map<string, string>();
  for (const stat of (await files.scan()).files) {
    const text = decodeMemoryText(await files.read(stat.path), stat.path);
    const doc = parseMemory(text, { path: stat.path, defaultUser: config.defaultOwner, fallbackTime: new Date(stat.mtimeMs).toISOString() });
    for (const r of toChunkRecords(doc, { maxChars: config.chunkMaxChars })) out.set(r.chunkId, r.path);
  }
  return out;
}

// The SDK logs every request to stdout at debug level under NODE_ENV=test.
sdkLogger.silent = true;

/** The root's collection in the shared Milvus Lite (named from the id in its state folder). */
export async function rootCollection(root: string): Promise<string> {
  return `memdir_${(await readFile(join(root, '.mem', 'root-id'), 'utf8')).trim()}`;
}

/** A client of the shared Milvus Lite server the root uses, for looking behind memdir's back. */
export async function liteClient(root: string): Promise<MilvusClient> {
  const servers = serverLayout(loadConfig(cleanEnv(), { root }).serverHome).servers;
  const { port, secret } = JSON.parse(await readFile(join(servers, 'milvus-lite.json'), 'utf8')) as { port: number; secret: string };
  return new MilvusClient({
    address: `127.0.0.1:${port}`,
    token: secret,
    channelOptions: { 'grpc.keepalive_time_ms': 2147483647, 'grpc.keepalive_permit_without_calls': 0 },
  });
}

/** chunk id -> path of every row in the root's collection in the shared Milvus Lite. */
export async function indexedChunks(root: string, collection?: string): Promise<Map<string, string>> {
  collection ??= await rootCollection(root);
  const client = await liteClient(root);
  try {
    const res = await client.query({ collection_name: collection, filter: 'chunk_id != ""', output_fields: ['chunk_id', 'path'], limit: 16_384 });
    return new Map((res.data as { chunk_id: string; path: string }[]).map((r) => [r.chunk_id, r.path]));
  } finally {
    await client.closeConnection();
  }
}
