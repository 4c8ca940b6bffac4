// An embedder whose server is reached only when it is first needed (memdir's own mpnet server for the second dense
// field): a command that embeds nothing never installs or starts it, and a server that stopped since
// (idle, or `mem server stop`) is found again, and started again, on the next call.
import type { Embedder, EmbeddingModelIdentity } from '../../services/ports.js';

export class OnDemandEmbedder implements Embedder {
  private current: Promise<Embedder> | null = null;

  /** `connect` returns an embedder of a running server (starting it if needed); called again after a failure. */
  constructor(
    readonly identity: EmbeddingModelIdentity,
    private readonly connect: () => Promise<Embedder>,
  ) {}

  embedDocuments(texts: string[]): Promise<number[][]> {
    return this.call((e) => e.embedDocuments(texts));
  }

  embedQuery(text: string): Promise<number[]> {
    return this.call((e) => e.embedQuery(text));
  }

  private async call<T>(use: (embedder: Embedder) => Promise<T>): Promise<T> {
    this.current ??= this.connect();
    const connecting = this.current;
    try {
      return await use(await connecting);
    } catch (err) {
      // The next call looks for the server again (it may have stopped, or its start may have failed).
      if (this.current === connecting) this.current = null;
      throw err;
    }
  }
}
