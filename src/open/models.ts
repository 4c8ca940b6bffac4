// Puts the models on the connection: the embedder (wrapped when a caller asks), the second dense field when
// configured (started now for `mem setup`), and the index that writes and searches it too.
import type { MemConfig } from '../config.js';
import { serverLayout, type StateLayout } from '../memory/layout.js';
import type { SecondModel } from '../services/core/second-vectors.js';
import type { Embedder, VectorIndex } from '../services/ports.js';
import type { Connection } from './connect.js';
import { embedderOf, secondModelOf } from './embedders.js';
import type { WiringOptions } from './options.js';

export interface Models {
  embedder: Embedder;
  second?: SecondModel;
  /** The connection's index, with the second field when there is one, wrapped when a caller asks. */
  index: VectorIndex;
}

export async function openModels(config: MemConfig, options: WiringOptions, layout: StateLayout, connection: Connection): Promise<Models> {
  const baseEmbedder = await embedderOf(config, connection.local, serverLayout(config.serverHome));
  const embedder = options.wrapEmbedder ? options.wrapEmbedder(baseEmbedder) : baseEmbedder;
  const secondModel = await secondModelOf(config, layout, options);
  if (secondModel && options.startAll) await secondModel.start();
  const second = secondModel?.model;
  const withSecond = second ? (await import('../services/core/second-vectors.js')).secondVectorIndex(connection.index, second) : connection.index;
  const index = options.wrapIndex ? options.wrapIndex(withSecond) : withSecond;
  return { embedder, ...(second ? { second } : {}), index };
}
