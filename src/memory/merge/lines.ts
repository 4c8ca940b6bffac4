// A line-by-line three-way merge of two texts, with node-diff3 (the diff3 algorithm git's own text merge follows).
import { diff3Merge } from 'node-diff3';

/** The merged text when the two sides' changes touch different lines, else undefined (they overlap). */
export function lineMerge(base: string, a: string, b: string): string | undefined {
  const regions = diff3Merge(a.split('\n'), base.split('\n'), b.split('\n'), { excludeFalseConflicts: true });
  const out: string[] = [];
  for (const r of regions) {
    if (r.conflict) return undefined;
    out.push(...(r.ok ?? []));
  }
  return out.join('\n');
}
