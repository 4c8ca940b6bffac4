// Covers reading agents' hook inputs into turns: Claude Code transcript lines (said text only), Codex notify, Gemini AfterAgent.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { claudeTurns, codexNotifyTurns, geminiAfterAgentTurns } from '../../../../src/services/capture/agent-turns.js';

const fixture = (name: string) => readFileSync(fileURLToPath(new URL(`../../../fixtures/agents/${name}`, import.meta.url)), 'utf8');
const lines = (name: string) => fixture(name).split('\n').filter(Boolean);

describe('claudeTurns', () => {
  it('keeps what the user and the assistant said; drops summaries, commands, meta lines, thinking, tool use and results', () => {
    const turns = claudeTurns(lines('claude-code-transcript-1.jsonl'));
    expect(turns.map((t) => t.role)).toEqual(['user', 'assistant']);
    expect(turns[0]).toEqual({
      role: 'user',
      content: expect.stringContaining('this project uses pnpm as its package manager') as string,
      time: '2026-11-30T09:01:00.000Z',
    });
    // The assistant's text lines around a tool call are one answer.
    expect(turns[1]!.content).toBe(
      'Understood: I will use pnpm for installs and scripts in this project.\n\nDependencies are installed with pnpm (312 packages).',
    );
    expect(JSON.stringify(turns)).not.toMatch(/tool_use|Packages: \+312|Caveat|command-name|The user wants pnpm/);
  });

  it('skips a line cut short or not JSON, and sidechain lines', () => {
    const sidechain = JSON.stringify({ type: 'user', isSidechain: true, message: { role: 'user', content: 'subagent prompt' } });
    expect(claudeTurns(['{"type":"user","mess', 'not json', sidechain])).toEqual([]);
    expect(claudeTurns(lines('claude-code-transcript-1-more.jsonl')).map((t) => t.content)).toEqual([
      "Thanks, that's all for today.",
      "You're welcome. See you next time.",
    ]);
  });
});

describe('codexNotifyTurns and geminiAfterAgentTurns', () => {
  const now = new Date('2026-12-01T10:00:00Z');

  it('Codex: the turn input and the last assistant message; other notifications are ignored', () => {
    const turns = codexNotifyTurns(JSON.parse(fixture('codex-notify.json')), now);
    expect(turns).toEqual([
      { role: 'user', content: expect.stringContaining('we deploy on Fridays only') as string, time: now.toISOString() },
      { role: 'assistant', content: expect.stringContaining('Renamed checkout to payments') as string, time: now.toISOString() },
    ]);
    expect(codexNotifyTurns({ type: 'approval-requested' }, now)).toEqual([]);
  });

  it('Gemini: prompt and response, at the event time', () => {
    const turns = geminiAfterAgentTurns(JSON.parse(fixture('gemini-after-agent.json')), now);
    expect(turns.map((t) => [t.role, t.time])).toEqual([
      ['user', '2026-12-01T08:05:00.000Z'],
      ['assistant', '2026-12-01T08:05:00.000Z'],
    ]);
    expect(geminiAfterAgentTurns(null, now)).toEqual([]);
  });
});
