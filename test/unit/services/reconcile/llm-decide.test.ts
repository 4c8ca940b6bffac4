// Covers the LLM reconciliation: valid answers are used, anything malformed is reported for the rule fallback.
import { describe, expect, it } from 'vitest';

import { LlmError } from '../../../../src/errors.js';
import type { Candidate } from '../../../../src/services/reconcile/decision.js';
import { decideWithLlm, reconcilePrompt } from '../../../../src/services/reconcile/llm-decide.js';
import type { Llm } from '../../../../src/services/ports.js';

const llm = (answer: unknown): Llm & { prompts: string[] } => {
  const prompts: string[] = [];
  return {
    model: 'fake',
    prompts,
    async completeJson({ user }) {
      prompts.push(user);
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
};
const candidates: Candidate[] = [
  { id: 'm1', path: 'alice/semantic/m1.md', text: 'Alice lives in Munich', created: '2026-01-01T00:00:00.000Z', similarity: 0.9, key: 'residence' },
];
const incoming = { text: 'Alice moved to Berlin', source: 'user' };

describe('decideWithLlm', () => {
  it('uses a valid SUPERSEDE naming a shown memory', async () => {
    const d = await decideWithLlm(llm({ action: 'SUPERSEDE', target_id: 'm1', reason: 'she moved', text: null }), incoming, candidates);
    expect(d).toEqual({ action: 'SUPERSEDE', target: 'm1', reason: 'she moved', by: 'llm' });
  });

  it('uses the merged text of an UPDATE', async () => {
    const d = await decideWithLlm(
      llm({ action: 'UPDATE', target_id: 'm1', reason: 'more detail', text: ' Alice lives in central Munich ' }),
      incoming,
      candidates,
    );
    expect(d).toMatchObject({ action: 'UPDATE', target: 'm1', text: 'Alice lives in central Munich' });
  });

  it('rejects a target it was not shown', async () => {
    const d = await decideWithLlm(llm({ action: 'SUPERSEDE', target_id: 'bob/secret', reason: 'x' }), incoming, candidates);
    expect(d).toEqual({ invalid: expect.stringMatching(/not one of the similar memories/) });
  });

  it('rejects answers outside the schema and endpoint failures', async () => {
    expect(await decideWithLlm(llm({ action: 'DELETE', reason: 'x' }), incoming, candidates)).toHaveProperty('invalid');
    expect(await decideWithLlm(llm('just text'), incoming, candidates)).toHaveProperty('invalid');
    expect(await decideWithLlm(llm(new LlmError('connection refused')), incoming, candidates)).toEqual({ invalid: 'connection refused' });
  });

  it('shows the model the new memory and the candidates as data', async () => {
    const model = llm({ action: 'ADD', target_id: null, reason: 'new' });
    await decideWithLlm(model, incoming, candidates);
    const prompt = JSON.parse(model.prompts[0]!);
    expect(prompt.new_memory.text).toBe('Alice moved to Berlin');
    expect(prompt.existing_memories[0]).toMatchObject({ id: 'm1', key: 'residence', source: 'user' });
    expect(reconcilePrompt(incoming, [])).toContain('"existing_memories": []');
  });
});
