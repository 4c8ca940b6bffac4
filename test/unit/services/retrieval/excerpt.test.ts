// A memory-level result's excerpt: the best unit grown with its section's neighbours, never past the size cap.
import { describe, expect, it } from 'vitest';

import { excerptOf } from '../../../../src/services/retrieval/excerpt.js';
import { hitRecord, type HitRecord } from '../../../support/hit-record.js';

type Row = HitRecord;

function row(text: string, lines: [number, number], heading = 'Notes', path = 'alice/semantic/a.md', kind: Row['kind'] = 'unit'): Row {
  return hitRecord(`${path}:${lines[0]}:${kind}`, {
    kind,
    memoryId: 'a',
    user: 'alice',
    path,
    heading,
    lineStart: lines[0],
    lineEnd: lines[1],
    content: heading
      ? `${heading}

${text}`
      : text,
  });
}

describe('excerptOf', () => {
  const a = row('Wei takes violin lessons with Marta.', [5, 5]);
  const b = row('He learned a Bach minuet.', [7, 7]);
  const c = row('Sources: wei-1, wei-2', [9, 9]);

  it('a short memory reads whole: the units of its section in line order, with the heading once', () => {
    const out = excerptOf(b, [c, a, b], 1500);
    expect(out.content).toBe('Notes\n\nWei takes violin lessons with Marta.\n\nHe learned a Bach minuet.\n\nSources: wei-1, wei-2');
    expect(out.lines).toEqual([5, 9]);
  });

  it('stays within the size cap, keeps the best unit, and never takes another heading, file or a window', () => {
    const other = row('Another section entirely.', [11, 11], 'Elsewhere');
    const otherFile = row('Another file.', [6, 6], 'Notes', 'alice/semantic/b.md');
    const window = row('window text', [5, 9], 'Notes', 'alice/semantic/a.md', 'window');
    const out = excerptOf(b, [a, b, c, other, otherFile, window], 'He learned a Bach minuet.'.length + 2 + 'Sources: wei-1, wei-2'.length);
    expect(out.content).toContain('He learned a Bach minuet.');
    expect(out.content).not.toContain('Another');
    expect(out.content).not.toContain('window text');
    expect(out.content.length - 'Notes\n\n'.length).toBeLessThanOrEqual('He learned a Bach minuet.'.length + 2 + 'Sources: wei-1, wei-2'.length);
  });

  it('a unit alone, or one larger than the cap, is shown as it is', () => {
    expect(excerptOf(a, [], 1500)).toEqual({ content: a.content, lines: [5, 5] });
    expect(excerptOf(a, [a, b], 10)).toEqual({ content: a.content, lines: [5, 5] });
  });
});
