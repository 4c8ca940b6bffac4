// The vocabulary of write-time reconciliation: what is being added, what it is compared with, what was decided.
/** What write-time reconciliation decided: a new memory, a rewrite of an existing one, a correction, or nothing. */
export type ReconcileAction = 'ADD' | 'UPDATE' | 'SUPERSEDE' | 'NOOP';

export interface Incoming {
  text: string;
  key?: string;
  source: string;
}

/** An active memory of the same user (and type, or key) that the new one might duplicate, refine or contradict. */
export interface Candidate {
  id: string;
  path: string;
  text: string;
  key?: string;
  source?: string;
  created: string;
  /** Cosine similarity to the new text (0 when found by key only). */
  similarity: number;
}

export interface Decision {
  action: ReconcileAction;
  /** The existing memory acted on (UPDATE, SUPERSEDE) or already holding the fact (NOOP). */
  target?: string;
  reason: string;
  /** UPDATE: the rewritten text (defaults to the new text). */
  text?: string;
  /** Who decided: explicit flag, offline rules, or the LLM. */
  by: 'explicit' | 'rules' | 'llm';
  /** Beyond doubt (the very same text): no model is asked. */
  certain?: boolean;
}

/** Case, spacing and trailing punctuation do not make a fact new. */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[\s.!?。！？]+$/u, '')
    .trim();
}
