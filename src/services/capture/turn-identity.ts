// A captured turn's identity, independent of the session that carried it: a resumed session repeats the old turns
// under a new session id, and a session may be seen from more than one hook. Keys are hashes (a tombstone built
// from them holds no text): one of the content (role, time, text), and one of the agent's message id when it gives
// one, so either surviving a resume is enough to know the turn. Pure.
import { sha256 } from '../../memory/hash.js';
import type { Turn } from '../ingest/transcript.js';
import type { LineTurn } from './agent-turns.js';

export interface KeyedTurn {
  turn: Turn;
  keys: string[];
}

export function turnKeys({ turn, uuid }: LineTurn): string[] {
  const keys = [sha256(['turn', turn.role.toLowerCase(), turn.time ?? '', turn.content].join('\0')).slice(0, 32)];
  if (uuid) keys.push(sha256(`message\0${uuid}`).slice(0, 32));
  return keys;
}

/** The turns none of whose keys is known, each once (a turn repeated within the batch too). */
export function unknownTurns(turns: LineTurn[], known: ReadonlySet<string>): KeyedTurn[] {
  const seen = new Set(known);
  const out: KeyedTurn[] = [];
  for (const t of turns) {
    const keys = turnKeys(t);
    if (keys.some((k) => seen.has(k))) continue;
    for (const k of keys) seen.add(k);
    out.push({ turn: t.turn, keys });
  }
  return out;
}
