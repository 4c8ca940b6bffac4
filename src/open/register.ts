// Registers a root with the shared local servers and leases them for this process: its collection is named from the
// root's identity, and a copied root (its identity minted anew) has its index built again.
import type { MemConfig } from '../config.js';
import type { ServerLayout, StateLayout } from '../memory/layout.js';
import type { OpenOptions } from './options.js';

export interface Registration {
  /** The root's collection in the shared Milvus Lite. */
  collection: string;
  /** The root's index has to be built anew in the shared server (a copied root: its identity was minted anew). */
  rebuild: boolean;
  /** Set when this root's id was just made: the collections of its earlier ids are dropped once Milvus is up. */
  replacedOf?: (drop: (collection: string) => Promise<void>) => Promise<string[]>;
  /** Ends this process's lease (the servers may then stop when idle). */
  release: () => Promise<void>;
}

/** Registered and leased before the servers start: a server with no root in use, or idle and unleased, stops. */
export async function registerAndLease(config: MemConfig, options: OpenOptions, layout: StateLayout, servers: ServerLayout): Promise<Registration> {
  const [{ rootCollection }, { registerRoot, takeLease, dropReplacedCollections }] = await Promise.all([
    import('../adapters/runtime/root-identity.js'),
    import('../adapters/runtime/root-registry.js'),
  ]);
  // One Milvus Lite for all roots: each root has its own collection, named from the root's identity.
  const identity = await rootCollection(layout, config.root, servers);
  const rebuild = config.index.kind === 'embedded' && identity.minted;
  if (rebuild) options.onLog?.(`moving this root's index into the shared Milvus Lite (${servers.milvusData}), from the vector cache`);
  await registerRoot(servers, { collection: identity.collection, root: config.root, stateDir: layout.dir });
  const replacedOf = identity.created
    ? (drop: (collection: string) => Promise<void>) => dropReplacedCollections(servers, config.root, identity.collection, drop)
    : undefined;
  const release = await takeLease(servers);
  return { collection: identity.collection, rebuild, release, ...(replacedOf ? { replacedOf } : {}) };
}
