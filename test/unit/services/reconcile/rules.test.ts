// Covers the offline reconciliation rules, the new-words guard and provenance precedence.
import { describe, expect, it } from 'vitest';

import type { Candidate } from '../../../../src/services/reconcile/decision.js';
import { normalizeText } from '../../../../src/services/reconcile/decision.js';
import { outrankedBy, provenanceRank } from '../../../../src/services/reconcile/provenance.js';
import { decideByRules, newWords } from '../../../../src/services/reconcile/rules.js';

const cand = (id: string, text: string, similarity: number, extra: Partial<Candidate> = {}): Candidate => ({
  id,
  path: `alice/semantic/${id}.md`,
  text,
  created: '2026-01-01T00:00:00.000Z',
  similarity,
  ...extra,
});
const opts = { duplicateThreshold: 0.95 };

describe('decideByRules', () => {
  it('adds when nothing is similar', () => {
    expect(decideByRules({ text: 'Alice plays chess', source: 'user' }, [], opts)).toMatchObject({ action: 'ADD', by: 'rules' });
  });

  it('is a NOOP for the same text up to case, spacing and final punctuation', () => {
    const d = decideByRules({ text: 'alice  lives in Munich', source: 'user' }, [cand('m1', 'Alice lives in Munich.', 0.2)], opts);
    expect(d).toMatchObject({ action: 'NOOP', target: 'm1' });
    expect(d.reason).toMatch(/same text/);
  });

  it('is a NOOP for a near-duplicate that brings no new word', () => {
    const d = decideByRules({ text: 'Alice is living in Munich', source: 'user' }, [cand('m1', 'Alice lives in Munich', 0.996)], opts);
    expect(d).toMatchObject({ action: 'NOOP', target: 'm1' });
    expect(d.reason).toMatch(/near-duplicate of m1 \(similarity 0.996/);
  });

  it('adds a close text that changes a number or adds a detail', () => {
    expect(decideByRules({ text: 'Alice has three cats', source: 'user' }, [cand('m1', 'Alice has two cats', 0.967)], opts).action).toBe('ADD');
    expect(decideByRules({ text: 'Allergic to peanuts and shellfish', source: 'user' }, [cand('m1', 'Allergic to peanuts', 0.971)], opts).action).toBe('ADD');
  });

  it('adds below the threshold', () => {
    expect(decideByRules({ text: 'Alice lives in Munich', source: 'user' }, [cand('m1', 'Alice lives in Munich city', 0.94)], opts).action).toBe('ADD');
  });

  it('supersedes the newest memory of the same key', () => {
    const d = decideByRules(
      { text: 'Alice moved to Berlin', key: 'residence', source: 'user' },
      [
        cand('old', 'Alice lives in Paris', 0, { key: 'residence', created: '2025-01-01T00:00:00.000Z' }),
        cand('newer', 'Alice lives in Munich', 0.9, { key: 'residence', created: '2026-01-01T00:00:00.000Z' }),
        cand('other', 'Alice works in Munich', 0.92, { key: 'employer' }),
      ],
      opts,
    );
    expect(d).toMatchObject({ action: 'SUPERSEDE', target: 'newer' });
  });

  it('same key and same text is still a NOOP', () => {
    expect(
      decideByRules({ text: 'Alice lives in Munich', key: 'residence', source: 'user' }, [cand('m1', 'Alice lives in Munich', 1, { key: 'residence' })], opts)
        .action,
    ).toBe('NOOP');
  });
});

describe('newWords', () => {
  it('stems, drops stop words and splits Chinese into characters', () => {
    expect(newWords('Alice is living in Munich', 'Alice lives in Munich')).toEqual([]);
    expect(newWords('Alice has three cats', 'Alice has two cats')).toEqual(['three']);
    expect(newWords('爱丽丝喜欢红茶', '爱丽丝喜欢绿茶')).toEqual(['红']);
  });
});

describe('normalizeText', () => {
  it('folds case, width and spacing', () => {
    expect(normalizeText('  Ａlice   LIKES tea!! ')).toBe('alice likes tea');
  });
});

describe('provenance', () => {
  it('ranks system over user over inferences', () => {
    expect(provenanceRank('system:crm')).toBe(3);
    expect(provenanceRank('user')).toBe(2);
    expect(provenanceRank(undefined)).toBe(2);
    expect(provenanceRank('agent')).toBe(1);
    expect(provenanceRank('ingest:chat.json')).toBe(1);
    expect(provenanceRank('userland')).toBe(1);
  });

  it('explains why an inference may not replace a user statement', () => {
    expect(outrankedBy('agent', 'user')).toMatch(/source \(user\) outranks this one's \(agent\)/);
    expect(outrankedBy('user', 'agent')).toBeUndefined();
    expect(outrankedBy('system', 'user')).toBeUndefined();
    expect(outrankedBy('user', 'system')).toBeDefined();
  });
});
