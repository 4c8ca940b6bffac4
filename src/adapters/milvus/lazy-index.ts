// The Milvus index, loaded on its first call: a command that never asks the index (a no-op reindex) skips the SDK.
import type { EmbeddingModelIdentity, IndexScope, OpenOptions, IndexSearchRequest, IndexedChunk, LineSpan, VectorIndex } from '../../services/ports.js';
import type { MilvusIndex, MilvusIndexOptions } from './milvus-index.js';

/**
 * Importing the Milvus SDK loads over 400 modules (gRPC, protobufjs, OpenTelemetry, winston, parquetjs, the
 * AWS SDK): 1.8 s of a 10 s no-op reindex at 50,000 files on a loaded machine.
 */
export class LazyMilvusIndex implements VectorIndex {
  readonly location: string;
  private loaded: Promise<MilvusIndex> | undefined;

  constructor(private options: MilvusIndexOptions) {
    // The same as MilvusIndex's: the manifest of a remote index is named by it, before anything is loaded.
    this.location = `${options.address} (collection ${options.collection})`;
  }

  open = (model: EmbeddingModelIdentity, options?: OpenOptions) => this.index().then((i) => i.open(model, options));
  drop = () => this.index().then((i) => i.drop());
  upsert = (rows: IndexedChunk[]) => this.index().then((i) => i.upsert(rows));
  insert = (rows: IndexedChunk[]) => this.index().then((i) => i.insert(rows));
  deleteChunks = (chunkIds: string[]) => this.index().then((i) => i.deleteChunks(chunkIds));
  deleteStale = (paths: string[], keep: string[]) => this.index().then((i) => i.deleteStale(paths, keep));
  delete = (scope: IndexScope) => this.index().then((i) => i.delete(scope));
  search = (request: IndexSearchRequest) => this.index().then((i) => i.search(request));
  unitsWithin = (scope: IndexScope, spans: LineSpan[], limit: number) => this.index().then((i) => i.unitsWithin(scope, spans, limit));
  flush = () => this.index().then((i) => i.flush());
  compact = () => this.index().then((i) => i.compact());
  count = (scope: IndexScope) => this.index().then((i) => i.count(scope));
  listPaths = () => this.index().then((i) => i.listPaths());
  listChunks = () => this.index().then((i) => i.listChunks());
  /** Nothing to close when nothing was loaded. */
  close = async () => {
    if (this.loaded) await (await this.loaded).close();
  };

  /** Later calls go to another server (the same collection, restarted on another port): the current client is closed. */
  async retarget(address: string, token: string | undefined): Promise<void> {
    const loaded = this.loaded;
    this.loaded = undefined;
    this.options = { ...this.options, address, ...(token ? { token } : {}) };
    if (loaded) await (await loaded).close();
  }

  private index(): Promise<MilvusIndex> {
    return (this.loaded ??= import('./milvus-index.js').then(({ MilvusIndex }) => new MilvusIndex(this.options)));
  }
}
