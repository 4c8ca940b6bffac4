// Scoring direction, decay and the relevance/recency/importance blend.
import { describe, expect, it } from 'vitest';

import { DEFAULT_SCORING, blendScore, recencyScore } from '../../../../src/services/retrieval/rescore.js';

const HOUR = 3_600_000;
const w = { relevance: 0.6, recency: 0.2, importance: 0.2, halfLifeHours: 24 };

describe('recencyScore', () => {
  it('is 1 now, halves every half-life, and never goes below 0 or above 1', () => {
    expect(recencyScore(0, 24)).toBe(1);
    expect(recencyScore(24, 24)).toBeCloseTo(0.5, 12);
    expect(recencyScore(72, 24)).toBeCloseTo(0.125, 12);
    expect(recencyScore(-5, 24)).toBe(1); // a future timestamp counts as now
    expect(recencyScore(1e9, 24)).toBeGreaterThanOrEqual(0);
  });
});

describe('blendScore', () => {
  const now = 1_000 * HOUR;
  it('more relevant, more recent or more important never scores lower', () => {
    const base = blendScore(0.5, now - 48 * HOUR, 0.5, now, w).score;
    expect(blendScore(0.9, now - 48 * HOUR, 0.5, now, w).score).toBeGreaterThan(base);
    expect(blendScore(0.5, now - 1 * HOUR, 0.5, now, w).score).toBeGreaterThan(base);
    expect(blendScore(0.5, now - 48 * HOUR, 0.9, now, w).score).toBeGreaterThan(base);
  });

  it('is the weighted mean of its parts, within [0, 1]', () => {
    const parts = blendScore(0.8, now - 24 * HOUR, 0.4, now, w);
    expect(parts.recency).toBeCloseTo(0.5, 12);
    expect(parts.score).toBeCloseTo(0.6 * 0.8 + 0.2 * 0.5 + 0.2 * 0.4, 12);
    const clamped = blendScore(3, now, 7, now, w);
    expect(clamped.score).toBeLessThanOrEqual(1);
    expect(clamped.relevance).toBe(1);
  });

  it('working memory decays faster than semantic memory by default', () => {
    const week = now - 24 * 7 * HOUR;
    expect(blendScore(0.5, week, 0.5, now, DEFAULT_SCORING.working).recency).toBeLessThan(blendScore(0.5, week, 0.5, now, DEFAULT_SCORING.semantic).recency);
  });
});
