// What the agent gets: the share of a question's evidence turns (and sessions) whose text is inside the context block
// `mem search --format context --budget N` hands it, and the tokens that block uses, at a few budgets.
import { sessionKey } from './metrics.js';

/** 500 tokens, the session-start default (1,200), and 2,000: the budgets measured unless others are asked for. */
export const BUDGETS: readonly number[] = [500, 1200, 2000];

export interface BudgetOutcome {
  /** Evidence turn ids, conversation-qualified ("conv-26/D3:7"). */
  evidence: string[];
  /** Per budget: the evidence turns whose whole text is inside the block, and the block's tokens. */
  inside: Record<number, { turns: string[]; tokens: number }>;
}

export interface BudgetFigures {
  /** Mean share of a question's evidence turns whose text is inside the block. */
  turn: number;
  /** Mean share of a question's evidence sessions with an evidence turn inside the block. */
  session: number;
  /** Mean tokens the block used (its own estimate, as the budget counts them). */
  tokens: number;
}

/** Text compared as the block shows it: whitespace collapsed. */
export const flat = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The evidence turns whose (flattened) text the block holds in full. */
export function turnsInside(block: string, evidence: string[], textOf: (turn: string) => string | undefined): string[] {
  const shown = flat(block);
  return evidence.filter((e) => {
    const text = textOf(e);
    return text !== undefined && text.length > 0 && shown.includes(flat(text));
  });
}

const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
const sessionsOf = (turns: string[]) => new Set(turns.map(sessionKey));

export function budgetFigures(outcomes: BudgetOutcome[], budgets: readonly number[] = BUDGETS): Record<string, BudgetFigures> {
  const out: Record<string, BudgetFigures> = {};
  for (const budget of budgets) {
    const scored = outcomes.filter((o) => o.evidence.length > 0);
    out[String(budget)] = {
      turn: mean(scored.map((o) => o.inside[budget]!.turns.length / o.evidence.length)),
      session: mean(scored.map((o) => sessionsOf(o.inside[budget]!.turns).size / sessionsOf(o.evidence).size)),
      tokens: mean(scored.map((o) => o.inside[budget]!.tokens)),
    };
  }
  return out;
}
