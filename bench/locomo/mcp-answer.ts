// What the agent gets from the MCP search tool: the share of a question's evidence turns (and sessions) whose text is
// inside the tool's answer (its default k and budget), and that answer's tokens, counted as the context block's.
import { estimateTokens, searchText, type SearchResult } from '../../dist/internal.js';
import { turnsInside } from './budget.js';
import { sessionKey } from './metrics.js';

export interface McpOutcome {
  /** Evidence turn ids, conversation-qualified ("conv-26/D3:7"). */
  evidence: string[];
  /** The evidence turns whose whole text is inside the answer. */
  turns: string[];
  tokens: number;
}

export interface McpFigures {
  /** Mean share of a question's evidence turns whose text is inside the answer. */
  turns: number;
  /** Mean share of a question's evidence sessions with an evidence turn inside the answer. */
  sessions: number;
  /** Mean tokens of the answer (the context block's estimate, within the tool's default budget). */
  tokens: number;
}

/** The answer the tool gives for these results of `query` (at its default budget), and which evidence turns it holds. */
export function mcpAnswer(user: string, query: string, results: SearchResult[], evidence: string[], textOf: (turn: string) => string | undefined): McpOutcome {
  const text = searchText(user, results, query);
  return { evidence, turns: turnsInside(text, evidence, textOf), tokens: estimateTokens(text) };
}

const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
const sessionsOf = (turns: string[]) => new Set(turns.map(sessionKey));

export function mcpFigures(outcomes: McpOutcome[]): McpFigures {
  const scored = outcomes.filter((o) => o.evidence.length > 0);
  return {
    turns: mean(scored.map((o) => o.turns.length / o.evidence.length)),
    sessions: mean(scored.map((o) => sessionsOf(o.turns).size / sessionsOf(o.evidence).size)),
    tokens: mean(scored.map((o) => o.tokens)),
  };
}
