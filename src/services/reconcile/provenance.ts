// Precedence by provenance: a system-of-record value outranks a user's statement, which outranks a model's inference.
const RANKS: [prefix: string, rank: number][] = [
  ['system', 3],
  ['user', 2],
];

/** "system", "system:crm" → 3; "user" → 2; anything else (agent, llm, ingest:…, unknown) is an inference → 1. */
export function provenanceRank(source: string | undefined): number {
  const s = (source ?? 'user').toLowerCase();
  for (const [prefix, rank] of RANKS) if (s === prefix || s.startsWith(`${prefix}:`)) return rank;
  return 1;
}

/** Why `incoming` may not replace `existing`, or undefined when it may. */
export function outrankedBy(incoming: string | undefined, existing: string | undefined): string | undefined {
  if (provenanceRank(incoming) >= provenanceRank(existing)) return undefined;
  return `the existing memory's source (${existing ?? 'user'}) outranks this one's (${incoming ?? 'user'})`;
}
