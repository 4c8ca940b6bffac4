// Covers what status and doctor report of the agent hooks: recent failures and fallbacks, newest first.
import { describe, expect, it } from 'vitest';

import { describeHookProblem, hookHealth } from '../../../../src/services/capture/hook-health.js';
import type { HookLogEntry } from '../../../../src/services/ports.js';

const entry = (at: string, over: Partial<HookLogEntry> = {}): HookLogEntry => ({ at, agent: 'claude-code', event: 'stop', ok: true, ms: 10, ...over });

describe('hookHealth', () => {
  it("counts the week's runs and lists its failures and fallbacks, newest first, at most five", () => {
    const now = new Date('2026-12-01T12:00:00Z');
    const entries = [
      entry('2026-11-01T00:00:00Z', { ok: false, error: 'too old' }),
      ...Array.from({ length: 6 }, (_, i) => entry(`2026-11-30T0${i}:00:00Z`, { ok: false, error: `boom ${i}`, hint: 'retry' })),
      entry('2026-12-01T10:00:00Z', { event: 'prompt', error: 'servers cold', hint: 'mem setup' }),
      entry('2026-12-01T11:00:00Z', { detail: 'captured 2 turns' }),
    ];
    const h = hookHealth(entries, now);
    expect(h).toMatchObject({ runs: 8, lastRun: '2026-12-01T11:00:00Z', problemCount: 7 });
    expect(h.problems.map((p) => p.error)).toEqual(['servers cold', 'boom 5', 'boom 4', 'boom 3', 'boom 2']);
    expect(describeHookProblem(h.problems[0]!)).toBe('2026-12-01T10:00:00Z claude-code prompt (fell back): servers cold — mem setup');
    expect(describeHookProblem(h.problems[1]!)).toBe('2026-11-30T05:00:00Z claude-code stop failed: boom 5 — retry');
    expect(hookHealth([], now)).toEqual({ runs: 0, problems: [], problemCount: 0 });
  });
});
