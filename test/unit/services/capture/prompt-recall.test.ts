// Covers the prompt hook's use case: both roots asked, the context block per scope, cold roots warmed and logged, the budget.
import { describe, expect, it } from 'vitest';

import { promptRecall, type RecallInput } from '../../../../src/services/capture/prompt-recall.js';
import { searchResult } from '../../../support/search-result.js';

const hit = (content: string) =>
  searchResult(content, { id: content.slice(0, 4), path: `ann/semantic/${content.slice(0, 4)}.md`, type: 'semantic', created: '2026-11-01T00:00:00Z' });

const input: RecallInput = { query: 'which package manager?', user: 'ann', projectRoot: '/p', personalRoot: '/home', promptTokens: 1000, ms: 1000 };

describe('promptRecall', () => {
  it('asks both roots and answers with a block per scope', async () => {
    const asked: string[] = [];
    const ask = (root: string, query: string, user: string) => (
      asked.push(`${root} ${query} ${user}`),
      Promise.resolve({ results: root === '/p' ? [hit('The shop uses bun.')] : [] })
    );
    const outcome = await promptRecall({ ask, warm: () => Promise.reject(new Error('not cold')), mayHoldMemories: () => true }, input);
    expect(asked).toEqual(['/p which package manager? ann', '/home which package manager? ann']);
    expect(outcome.detail).toBe('recalled 1');
    const out = outcome.output as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    expect(out.hookSpecificOutput.hookEventName).toBe('UserPromptSubmit');
    expect(out.hookSpecificOutput.additionalContext).toContain('scope="project"');
    expect(out.hookSpecificOutput.additionalContext).toContain('The shop uses bun.');
    expect(out.hookSpecificOutput.additionalContext).not.toContain('scope="personal"');
  });

  it('hands on the block the daemon rendered (and masked) as it is, and renders one here for a daemon that did not', async () => {
    const wanted: unknown[] = [];
    const ask = (root: string, _q: string, _u: string, _ms: number, block: unknown) => {
      wanted.push(block);
      return Promise.resolve(
        root === '/p'
          ? { results: [hit('The shop uses bun.')], block: '<memories user="ann" scope="project">rendered by the daemon</memories>' }
          : { results: [hit('Ann likes tea.')] },
      );
    };
    const outcome = await promptRecall({ ask, warm: () => Promise.reject(new Error('not cold')), mayHoldMemories: () => true }, input);
    expect(wanted).toEqual([
      { tokens: 500, attributes: { scope: 'project' }, about: 'Stored project memories of this user relevant to the prompt (memdir).' },
      { tokens: 500, attributes: { scope: 'personal' }, about: 'Stored personal memories of this user relevant to the prompt (memdir).' },
    ]);
    const text = (outcome.output as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    const [project, personal] = text.split('\n\n<memories');
    expect(project).toBe('<memories user="ann" scope="project">rendered by the daemon</memories>');
    expect(personal).toMatch(/^ user="ann" scope="personal">\nStored personal memories/);
    expect(personal).toContain('Ann likes tea.');
    expect(outcome.detail).toBe('recalled 2');
  });

  it('warms a cold root and says so; without a project only the personal root is asked', async () => {
    const warmed: string[] = [];
    const outcome = await promptRecall(
      { ask: () => Promise.resolve(null), warm: (root) => (warmed.push(root), Promise.resolve()), mayHoldMemories: () => true },
      { ...input, projectRoot: '/home', noProject: 'no git here' },
    );
    expect(warmed).toEqual(['/home']);
    expect(outcome).toEqual({
      output: undefined,
      detail: 'no git here; recalled 0',
      error: 'servers cold for /home: recall skipped there; starting them in the background',
      hint: '`mem setup --root <root>` starts them ahead of time',
    });
  });

  it('neither asks nor warms a root that can hold no memory (not there, or only a hook log in it): no daemon started for nothing', async () => {
    const asked: string[] = [];
    const warmed: string[] = [];
    const outcome = await promptRecall(
      {
        ask: (root) => (asked.push(root), Promise.resolve(root === '/p' ? { results: [hit('The shop uses bun.')] } : null)),
        warm: (root) => (warmed.push(root), Promise.resolve()),
        mayHoldMemories: (root) => root === '/p',
      },
      input,
    );
    expect([asked, warmed]).toEqual([['/p'], []]);
    expect(outcome.error).toBeUndefined();
    expect(outcome.detail).toBe('recalled 1');
  });

  it('goes without recall when the daemons do not answer within the budget', async () => {
    const outcome = await promptRecall(
      { ask: () => new Promise(() => undefined), warm: () => Promise.resolve(), mayHoldMemories: () => true },
      { ...input, ms: 20 },
    );
    expect(outcome.error).toBe('the search daemon did not answer within the 1 s budget: no recall for this prompt');
    expect(outcome.output).toBeUndefined();
  });
});
