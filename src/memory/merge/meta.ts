// The three-way merge of two sides' front matter, key by key: a change made on one side is taken, lists are united,
// and for a value both sides changed the later `updated:` decides (created: the earlier, updated: the later). Pure.
import { KNOWN_KEYS, type MemoryMeta } from '../model.js';

/** Keys whose values are sets: both sides' additions are kept, a removal made on one side stays removed. */
const LIST_KEYS = new Set(['tags', 'sources', 'supersedes']);

const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);

const asList = (v: unknown): unknown[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** Items in either side, less those the base had that one side removed. */
export function unionList(base: unknown, a: unknown, b: unknown): unknown[] {
  const [o, x, y] = [asList(base), asList(a), asList(b)];
  const has = (list: unknown[], v: unknown) => list.some((w) => same(w, v));
  const out: unknown[] = [];
  for (const v of [...x, ...y]) {
    if (has(out, v)) continue;
    const removed = has(o, v) && (!has(x, v) || !has(y, v));
    if (!removed) out.push(v);
  }
  return out;
}

/** One key's merged value; `winner` is the side whose value stands when both changed it. */
function mergeValue(key: string, base: unknown, a: unknown, b: unknown, winner: 'a' | 'b'): unknown {
  if (same(a, b) || same(b, base)) return a;
  if (same(a, base)) return b;
  if (LIST_KEYS.has(key)) {
    // The winner's items first, so the same two sides give the same list whichever is ours.
    const united = winner === 'a' ? unionList(base, a, b) : unionList(base, b, a);
    // `supersedes:` may be one id: it stays one when the union is one.
    return !Array.isArray(a) && !Array.isArray(b) && united.length === 1 ? united[0] : united;
  }
  if (key === 'created' || key === 'updated') {
    const [ta, tb] = [Date.parse(String(a)), Date.parse(String(b))];
    if (!Number.isNaN(ta) && !Number.isNaN(tb)) return (key === 'created' ? ta <= tb : ta >= tb) ? a : b;
  }
  return winner === 'a' ? a : b;
}

const get = (meta: MemoryMeta | undefined, key: string): unknown =>
  meta === undefined ? undefined : (KNOWN_KEYS as readonly string[]).includes(key) ? meta[key as keyof MemoryMeta] : meta.extra[key];

/** Both sides' front matter as one; `base` is undefined when both sides added the file. */
export function mergeMeta(base: MemoryMeta | undefined, a: MemoryMeta, b: MemoryMeta, winner: 'a' | 'b'): MemoryMeta {
  const out: MemoryMeta = { ...(winner === 'a' ? a : b), extra: {} };
  const record = out as unknown as Record<string, unknown>;
  for (const key of KNOWN_KEYS) {
    const v = mergeValue(key, get(base, key), get(a, key), get(b, key), winner);
    if (v === undefined || (Array.isArray(v) && v.length === 0 && key !== 'tags')) delete record[key];
    else record[key] = v;
  }
  const [first, second] = winner === 'a' ? [a, b] : [b, a];
  for (const key of new Set([...Object.keys(first.extra), ...Object.keys(second.extra)])) {
    const v = mergeValue(key, base?.extra[key], a.extra[key], b.extra[key], winner);
    if (v !== undefined) out.extra[key] = v;
  }
  return out;
}
