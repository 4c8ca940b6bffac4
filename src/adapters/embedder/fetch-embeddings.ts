// One POST to an OpenAI-compatible /embeddings endpoint with the platform's fetch: memdir's own local server needs no
// SDK. Failures are classified and worded as the `openai` SDK words them, so the embedder reports them alike.

/** The request body, as the SDK would send it. */
export interface EmbeddingsRequest {
  model: string;
  input: string[];
  encoding_format: 'float';
  dimensions?: number;
}

/**
 * How a request failed: 'unreachable' (no connection: retried, with the server's hint), 'timeout' (never repeated),
 * 'retryable' (429, 5xx) or 'final'; the message is the SDK's for the same failure.
 */
export interface FailedRequest {
  failure: { kind: 'unreachable' | 'timeout' | 'retryable' | 'final'; message: string };
  cause: unknown;
}

export type EmbeddingsAnswer = { data: { index: number; embedding: number[] }[] } | FailedRequest;

const failed = (kind: FailedRequest['failure']['kind'], message: string, cause: unknown): FailedRequest => ({ failure: { kind, message }, cause });

function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The SDK's message for an error status (APIError.makeMessage over the body's `error`, else its text). */
export function statusMessage(status: number, body: string): string {
  const json = parsedOrUndefined(body);
  const error = (json as { error?: { message?: unknown } } | null | undefined)?.error;
  const text = json ? undefined : body;
  const msg = error?.message ? (typeof error.message === 'string' ? error.message : JSON.stringify(error.message)) : error ? JSON.stringify(error) : text;
  return msg ? `${status} ${msg}` : `${status} status code (no body)`;
}

export async function fetchEmbeddings(target: { url: string; apiKey: string; timeoutMs: number }, request: EmbeddingsRequest): Promise<EmbeddingsAnswer> {
  const signal = AbortSignal.timeout(target.timeoutMs);
  let res: Response;
  let body: string;
  try {
    res = await fetch(target.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(request),
      signal,
    });
    body = await res.text();
  } catch (err) {
    return signal.aborted ? failed('timeout', 'Request timed out.', err) : failed('unreachable', 'Connection error.', err);
  }
  if (!res.ok) {
    const kind = res.status === 429 || res.status >= 500 ? 'retryable' : 'final';
    return failed(kind, statusMessage(res.status, body), new Error(statusMessage(res.status, body)));
  }
  const data = (parsedOrUndefined(body) as { data?: unknown } | undefined)?.data;
  if (!Array.isArray(data)) return failed('final', `unexpected answer: ${body.slice(0, 200)}`, undefined);
  return { data: data as { index: number; embedding: number[] }[] };
}
