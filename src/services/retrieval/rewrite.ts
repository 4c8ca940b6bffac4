// Optional query rewrite: a chat model turns the question into the words memories are likely written
// in, and retrieval searches for both (the original keeps every word the person used; the rewrite adds
// the rest). Off unless configured; any failure or timeout searches for the original alone.
import type { QueryRewriter } from '../ports.js';

/** The text dense and BM25 retrieval search for. Names, dates and reranking keep the original query. */
export async function retrievalText(rewriter: QueryRewriter | undefined, query: string): Promise<string> {
  if (!rewriter) return query;
  try {
    const rewritten = (await rewriter.rewrite(query)).trim();
    return rewritten && rewritten.toLowerCase() !== query.trim().toLowerCase() ? `${query}\n${rewritten}` : query;
  } catch {
    return query;
  }
}
