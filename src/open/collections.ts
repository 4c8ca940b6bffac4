// Collections of the shared Milvus Lite that no root reaches any more (deleted roots, a root's earlier identity),
// dropped because they still hold every memory's text; and a connection moved to a restarted server.
import type { ServerLayout } from '../memory/layout.js';
import type { ServerRecord } from '../adapters/runtime/managed-server.js';

/** Drops a collection of the shared Milvus Lite running as `server` (a deleted root's, or a root's earlier identity's). */
export async function dropCollection(server: ServerRecord, collection: string): Promise<void> {
  const { MilvusIndex } = await import('../adapters/milvus/milvus-index.js');
  const index = new MilvusIndex({ address: `127.0.0.1:${server.port}`, token: server.secret, collection, embedded: true });
  await index.drop().finally(() => index.close());
}

/**
 * Drops, from the shared Milvus Lite running as `server`, the collections of the roots gone from disk (deleted, moved
 * away, or their `.mem/` deleted): nothing reaches them again, yet they hold every memory's text. A root moved away
 * keeps its files; its index is built again from its vector cache at its next command. Returns what was dropped.
 */
export async function pruneOrphans(servers: ServerLayout, server: ServerRecord): Promise<{ root: string; collection: string }[]> {
  const { dropOrphans } = await import('../adapters/runtime/root-registry.js');
  return dropOrphans(servers, (collection) => dropCollection(server, collection));
}

/**
 * Points the index at the shared Milvus Lite running now, when it is another than `used` (restarted on another port
 * since this command connected: its index worker talks to an address nobody answers on): true then. A server that is
 * gone and not replaced is not started here: the command fails with its clear error, as when a server dies under it.
 */
export async function reconnectMilvus(
  servers: ServerLayout,
  used: ServerRecord,
  index: { retarget(address: string, token: string): Promise<void> },
): Promise<boolean> {
  const [{ readRecord, isAlive }, { grpcAnswers }] = await Promise.all([
    import('../adapters/runtime/managed-server.js'),
    import('../adapters/runtime/grpc-probe.js'),
  ]);
  const now = await readRecord({ stateDir: servers.servers, name: 'milvus-lite' });
  if (!now || now.pid === used.pid || !isAlive(now.pid) || !(await grpcAnswers(now.port, now.secret, 10_000))) return false;
  await index.retarget(`127.0.0.1:${now.port}`, now.secret);
  return true;
}
