// Before the shared servers, each root ran its own Milvus Lite and embedding server, recorded under its state folder
// (`servers/`) with the index data beside them (`milvus/`). Such a root is migrated on its next use: its servers are
// stopped and that data removed (it may hold text the root has since forgotten), and the caller rebuilds the index
// in the shared server from the vector cache (no embedding).
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';

import type { StateLayout } from '../../memory/layout.js';
import { SERVER_NAMES } from './local-servers.js';
import { stopServer } from './managed-server.js';

/** True when the root had its own index data (now removed): its index must be rebuilt in the shared server. */
export async function retireLegacyServers(layout: StateLayout): Promise<boolean> {
  const hadIndex = existsSync(layout.legacyMilvusData);
  if (!hadIndex && !existsSync(layout.legacyServers)) return false;
  for (const name of SERVER_NAMES) await stopServer({ stateDir: layout.legacyServers, name, stopSignal: 'SIGINT' });
  await rm(layout.legacyServers, { recursive: true, force: true });
  await rm(layout.legacyMilvusData, { recursive: true, force: true });
  return hadIndex;
}
