// Connects a root to the index and embedder its configuration names: the shared local servers ensured (and the root
// registered and leased), the collections of the root's replaced identity dropped, then the index client opened.
import { sha256 } from '../memory/hash.js';
import { errorMessage } from '../errors.js';
import type { MemConfig } from '../config.js';
import { serverLayout, type StateLayout } from '../memory/layout.js';
import { dropCollection } from './collections.js';
import { milvusOptionsOf, openIndexClient, type IndexClient } from './index-client.js';
import type { OpenOptions } from './options.js';
import { ensureLocalServers, type LocalServers } from './servers.js';

export interface Connection extends IndexClient {
  /** The shared local servers in use (their records: port and secret). */
  local: LocalServers;
  /** The shared Milvus Lite data of the root's collection, which forget's byte scan must cover. */
  sharedIndexData?: { dir: string; collection: string };
  /** The root's index has to be built anew in the shared server (a copied root: its identity was minted anew). */
  rebuild: boolean;
  /** Ends this process's use of the shared servers (they may then stop when idle). */
  release: () => Promise<void>;
}

export async function connect(config: MemConfig, options: OpenOptions, layout: StateLayout): Promise<Connection> {
  const servers = serverLayout(config.serverHome);
  const { registration, local } = await ensureLocalServers(config, options, layout, servers);
  const embedded = config.index.kind === 'embedded';
  const collection = config.collection ?? (embedded && registration ? registration.collection : `memdir_${sha256(config.root).slice(0, 12)}`);
  const milvusOptions = milvusOptionsOf(config, collection, local, servers);
  if (registration?.replacedOf && embedded) {
    // Best effort: the command goes on if the drop fails (the collection stays listed as an orphan by `mem server status`).
    const dropped = await registration
      .replacedOf((name) => dropCollection(local.milvus!, name))
      .catch((err: unknown) => {
        options.onLog?.(`could not drop the index of this root's earlier identity (see \`mem server status\`): ${errorMessage(err)}`);
        return [];
      });
    if (dropped.length > 0) options.onLog?.(`dropped the index of this root's earlier identity (its .mem/ was deleted): ${dropped.join(', ')}`);
  }
  const client = await openIndexClient(config, options, milvusOptions, local, servers);
  return {
    ...client,
    local,
    rebuild: registration?.rebuild ?? false,
    release: registration?.release ?? (async () => {}),
    ...(embedded ? { sharedIndexData: { dir: servers.milvusData, collection } } : {}),
  };
}
