// What `mem status` and `mem doctor` say about the agent hooks: their recent failures and fallbacks,
// each with what to do. Pure.
import type { HookLogEntry } from '../ports.js';

export interface HookHealth {
  runs: number;
  lastRun?: string;
  /** Runs in the window that failed or fell back to less, newest first (at most 5). */
  problems: HookLogEntry[];
  /** How many runs in the window failed or fell back. */
  problemCount: number;
}

const WEEK_MS = 7 * 24 * 3600 * 1000;

export function hookHealth(entries: HookLogEntry[], now: Date, windowMs = WEEK_MS): HookHealth {
  const since = now.getTime() - windowMs;
  const recent = entries.filter((e) => Date.parse(e.at) >= since);
  const problems = recent.filter((e) => !e.ok || e.error).reverse();
  return {
    runs: recent.length,
    ...(entries.length ? { lastRun: entries[entries.length - 1]!.at } : {}),
    problems: problems.slice(0, 5),
    problemCount: problems.length,
  };
}

export function describeHookProblem(e: HookLogEntry): string {
  return `${e.at.slice(0, 19)}Z ${e.agent} ${e.event}${e.ok ? ' (fell back)' : ' failed'}: ${e.error ?? 'unknown'}${e.hint ? ` — ${e.hint}` : ''}`;
}
