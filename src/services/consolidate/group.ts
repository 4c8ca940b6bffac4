// Groups related memories by meaning: each joins the group whose centroid it is closest to, if close enough. Pure.

export interface Groupable {
  id: string;
  /** Unit-length embedding. */
  vector: number[];
}

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

function unit(v: number[]): number[] {
  const norm = Math.sqrt(dot(v, v)) || 1;
  return v.map((x) => x / norm);
}

/** Deterministic for a given order (callers pass oldest first); only groups of at least `minSize` are returned. */
export function groupBySimilarity<T extends Groupable>(items: T[], threshold: number, minSize = 2): T[][] {
  const groups: { members: T[]; sum: number[] }[] = [];
  for (const item of items) {
    let best: (typeof groups)[number] | undefined;
    let bestSim = threshold;
    for (const g of groups) {
      const sim = dot(unit(g.sum), item.vector);
      if (sim >= bestSim) {
        best = g;
        bestSim = sim;
      }
    }
    if (best) {
      best.members.push(item);
      best.sum = best.sum.map((x, i) => x + item.vector[i]!);
    } else {
      groups.push({ members: [item], sum: [...item.vector] });
    }
  }
  return groups.map((g) => g.members).filter((m) => m.length >= minSize);
}

/** The mean of several unit vectors, back to unit length (a memory's vector from its chunks'). */
export function meanVector(vectors: number[][]): number[] {
  const sum = vectors[0]!.map((_, i) => vectors.reduce((s, v) => s + v[i]!, 0));
  return unit(sum);
}
