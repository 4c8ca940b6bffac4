// Reranker over the `/rerank` API that Cohere, Jina, vLLM and other servers share: query + documents
// in, one relevance score per document out. Text Embeddings Inference's answer (a bare list) is read too.
import { errorMessage, LlmError } from '../../errors.js';
import type { Reranker } from '../../services/ports.js';

export interface HttpRerankerOptions {
  /** The endpoint itself, e.g. http://127.0.0.1:8080/v1/rerank. */
  url: string;
  model?: string;
  apiKey?: string;
  timeoutMs: number;
}

interface Scored {
  index: number;
  relevance_score?: number;
  score?: number;
}

/** The scores of a response body, by document index; throws when it is not a rerank answer for `count` documents. */
export function scoresOf(body: unknown, count: number): number[] {
  const list = Array.isArray(body) ? body : (body as { results?: unknown } | null)?.results;
  if (!Array.isArray(list)) throw new Error('the answer has no results list');
  const scores: number[] = new Array(count).fill(Number.NEGATIVE_INFINITY);
  for (const item of list as Scored[]) {
    const score = item?.relevance_score ?? item?.score;
    if (!Number.isInteger(item?.index) || item.index < 0 || item.index >= count || typeof score !== 'number' || !Number.isFinite(score)) {
      throw new Error(`the answer has an invalid result: ${JSON.stringify(item).slice(0, 120)}`);
    }
    scores[item.index] = score;
  }
  if (scores.some((s) => s === Number.NEGATIVE_INFINITY)) throw new Error(`the answer scores ${list.length} of ${count} documents`);
  return scores;
}

export class HttpReranker implements Reranker {
  readonly model: string;

  constructor(private readonly options: HttpRerankerOptions) {
    this.model = options.model ?? 'rerank';
  }

  async rerank(query: string, documents: string[]): Promise<number[]> {
    if (documents.length === 0) return [];
    try {
      const res = await fetch(this.options.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
        },
        body: JSON.stringify({ ...(this.options.model ? { model: this.options.model } : {}), query, documents, top_n: documents.length }),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      if (!res.ok) throw new Error(`HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
      return scoresOf(await res.json(), documents.length);
    } catch (err) {
      throw new LlmError(`rerank request to ${this.options.url} failed: ${errorMessage(err)}`, { cause: err });
    }
  }
}
