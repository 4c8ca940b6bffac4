// Covers grouping by similarity (centroid joins, threshold, minimum size) and the summary text.
import { describe, expect, it } from 'vitest';

import { groupBySimilarity, meanVector } from '../../../../src/services/consolidate/group.js';
import { extractiveSummary, period, summaryBody, summaryTitle } from '../../../../src/services/consolidate/summary.js';

const unit = (v: number[]) => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};

describe('groupBySimilarity', () => {
  it('groups close vectors and leaves loners out', () => {
    const items = [
      { id: 'a', vector: unit([1, 0.05, 0]) },
      { id: 'x', vector: unit([0, 0, 1]) },
      { id: 'b', vector: unit([1, 0, 0.05]) },
      { id: 'c', vector: unit([0.98, 0.1, 0]) },
      { id: 'y', vector: unit([0, 1, 0]) },
    ];
    const groups = groupBySimilarity(items, 0.95);
    expect(groups.map((g) => g.map((i) => i.id))).toEqual([['a', 'b', 'c']]);
  });

  it('needs the threshold and the minimum size', () => {
    const items = [
      { id: 'a', vector: unit([1, 0]) },
      { id: 'b', vector: unit([1, 1]) },
    ];
    expect(groupBySimilarity(items, 0.8)).toEqual([]); // cos 45° ≈ 0.707
    expect(groupBySimilarity(items, 0.7).map((g) => g.length)).toEqual([2]);
    expect(groupBySimilarity(items, 0.7, 3)).toEqual([]);
  });

  it('averages chunk vectors into a unit vector', () => {
    const v = meanVector([
      [1, 0],
      [0, 1],
    ]);
    expect(v[0]).toBeCloseTo(Math.SQRT1_2);
    expect(Math.hypot(...v)).toBeCloseTo(1);
  });
});

describe('summary text', () => {
  const sources = [
    { id: 'm2', created: '2026-03-05T10:00:00.000Z', text: '## Lesson\nLearned a Bach minuet' },
    { id: 'm1', created: '2026-03-01T10:00:00.000Z', text: 'First violin lesson with Marta' },
    { id: 'm3', created: '2026-03-09T10:00:00.000Z', text: 'learned a bach minuet' },
  ];

  it('keeps every specific once, dated, oldest first', () => {
    expect(extractiveSummary(sources)).toBe(
      '- 2026-03-01: First violin lesson with Marta\n- 2026-03-05: Lesson Learned a Bach minuet\n- 2026-03-09: learned a bach minuet',
    );
    expect(extractiveSummary([...sources, { ...sources[0]!, id: 'm4' }]).split('\n')).toHaveLength(3);
  });

  it('states the period and cites every source', () => {
    expect(period(sources)).toEqual({ from: '2026-03-01', to: '2026-03-09' });
    const body = summaryBody(sources, 'Alice studies violin.');
    expect(body).toContain('Consolidated from 3 memories, 2026-03-01 to 2026-03-09.');
    expect(body).toContain('Sources: m2, m1, m3');
    expect(summaryTitle(sources)).toBe('Summary: Lesson Learned a Bach minuet');
  });
});
