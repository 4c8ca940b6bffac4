// The deterministic reconciliation rules: same text or near-duplicate → NOOP, same key → SUPERSEDE, else ADD.
import { lexicalForm } from '../../memory/lexical.js';
import { normalizeText, type Candidate, type Decision, type Incoming } from './decision.js';

export interface RuleOptions {
  /** Cosine similarity at or above which a memory counts as already known. */
  duplicateThreshold: number;
}

export function decideByRules(incoming: Incoming, candidates: Candidate[], options: RuleOptions): Decision {
  const text = normalizeText(incoming.text);
  const same = candidates.find((c) => normalizeText(c.text) === text);
  if (same) return { action: 'NOOP', target: same.id, reason: `same text as ${same.id}`, by: 'rules', certain: true };

  if (incoming.key) {
    // The newest memory filling the same slot is the one a correction replaces.
    const slot = candidates.filter((c) => c.key === incoming.key).sort((a, b) => b.created.localeCompare(a.created))[0];
    if (slot) return { action: 'SUPERSEDE', target: slot.id, reason: `same key "${incoming.key}" as ${slot.id}`, by: 'rules' };
  }

  const closest = [...candidates].sort((a, b) => b.similarity - a.similarity)[0];
  // Embeddings rate "two cats" and "three cats" 0.97 alike: a close text that brings a word (or number)
  // the known one lacks is new information, not a duplicate.
  const added = closest ? newWords(incoming.text, closest.text) : [];
  if (closest && closest.similarity >= options.duplicateThreshold && added.length === 0) {
    return {
      action: 'NOOP',
      target: closest.id,
      reason: `near-duplicate of ${closest.id} (similarity ${closest.similarity.toFixed(3)} ≥ ${options.duplicateThreshold})`,
      by: 'rules',
    };
  }
  return { action: 'ADD', reason: candidates.length ? 'no memory holds this fact' : 'no similar memory', by: 'rules' };
}

// Words of alphabetic scripts and digits; each Han character on its own (Chinese has no spaces).
const TOKEN = /\p{Script=Han}|[\p{L}\p{N}]+/gu;
const words = (text: string) => new Set(lexicalForm(text).toLowerCase().match(TOKEN) ?? []);

/** Content words (stemmed, stop words out) of `text` that `known` lacks. */
export function newWords(text: string, known: string): string[] {
  const have = words(known);
  return [...words(text)].filter((w) => !have.has(w));
}
