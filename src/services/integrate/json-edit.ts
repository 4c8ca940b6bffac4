// JSON settings read and edited in place with jsonc-parser: comments, key order, indentation and the final newline
// of the person's file stay as they were, and only the values memdir adds or removes change. Pure.
import jsonc from 'jsonc-parser';

import { UsageError } from '../../errors.js';

export type JsonObject = Record<string, unknown>;
type JsonPath = (string | number)[];

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

const lineAt = (text: string, offset: number) => text.slice(0, offset).split('\n').length;

/** A settings file's object ({} for a missing or blank file); comments and trailing commas are allowed, as agents allow them. */
export function parseJsonObject(text: string | null, path: string): JsonObject {
  if (text === null || text.trim() === '') return {};
  const errors: jsonc.ParseError[] = [];
  const data: unknown = jsonc.parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) {
    throw new UsageError(
      `${path}:${lineAt(text, first.offset)}: not valid JSON (${jsonc.printParseErrorCode(first.error)}); fix it, then run mem integrate again (nothing was changed)`,
    );
  }
  if (!isObject(data)) throw new UsageError(`${path}:1: expected a JSON object; nothing was changed`);
  return data;
}

/** The line of the value at this path in the text (1 when it is not there). */
export function lineOf(text: string | null, at: JsonPath): number {
  const node = text ? jsonc.findNodeAtLocation(jsonc.parseTree(text, [], { allowTrailingComma: true }) ?? ({} as jsonc.Node), at) : undefined;
  return node && text ? lineAt(text, node.offset) : 1;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** How new values are laid out: like the file (its indentation and line ends); a one-line file stays on one line. */
function layoutOf(text: string): jsonc.FormattingOptions | undefined {
  if (!text.trim().includes('\n')) return undefined;
  const indent = /^([ \t]+)"/m.exec(text)?.[1] ?? '  ';
  const tabs = indent.startsWith('\t');
  return { insertSpaces: !tabs, tabSize: tabs ? 1 : indent.length, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

/**
 * One value set (or removed, `undefined`) at a path. jsonc-parser would lay out every line the edit touches, the
 * person's neighbouring values too; here only the text memdir inserts is laid out, so removing it gives the file back.
 */
function setAt(text: string, at: JsonPath, value: unknown, layout: jsonc.FormattingOptions | undefined, isArrayInsertion = false): string {
  const edits = jsonc.modify(text, at, value, { isArrayInsertion });
  let next = jsonc.applyEdits(text, edits);
  if (!layout || value === undefined) return next;
  for (const e of edits) {
    const end = e.offset + e.content.length;
    const inside = jsonc.format(next, { offset: e.offset, length: e.content.length }, layout).filter((f) => f.offset >= e.offset && f.offset + f.length <= end);
    next = jsonc.applyEdits(next, inside);
  }
  return next;
}

/** Whether `small` is `big` with some elements left out, order kept. */
function isSubsequence(small: unknown[], big: unknown[]): boolean {
  let i = 0;
  for (const item of big) if (i < small.length && same(small[i], item)) i++;
  return i === small.length;
}

/** The edits that turn the value at `at` from `before` into `after`, as small as the shapes allow. */
function change(text: string, at: JsonPath, before: unknown, after: unknown, layout: jsonc.FormattingOptions | undefined): string {
  if (same(before, after)) return text;
  const edit = (t: string, path: JsonPath, value: unknown, isArrayInsertion = false) => setAt(t, path, value, layout, isArrayInsertion);
  if (isObject(before) && isObject(after)) {
    let t = text;
    for (const key of Object.keys(before)) if (!(key in after)) t = edit(t, [...at, key], undefined);
    for (const key of Object.keys(before)) if (key in after) t = change(t, [...at, key], before[key], after[key], layout);
    for (const key of Object.keys(after)) if (!(key in before)) t = edit(t, [...at, key], after[key]);
    return t;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    let t = text;
    if (after.length >= before.length && before.every((v, i) => same(v, after[i]))) {
      for (const item of after.slice(before.length)) t = edit(t, [...at, -1], item, true);
      return t;
    }
    if (after.length < before.length && isSubsequence(after, before)) {
      // Removed from the last to the first, so the indexes still to remove do not move.
      let keep = after.length - 1;
      for (let i = before.length - 1; i >= 0; i--) {
        if (keep >= 0 && same(after[keep], before[i])) keep--;
        else t = edit(t, [...at, i], undefined);
      }
      return t;
    }
    if (after.length === before.length) {
      for (let i = 0; i < after.length; i++) t = change(t, [...at, i], before[i], after[i], layout);
      return t;
    }
  }
  return edit(text, at, after);
}

/** The file's text with its object changed to `next`: everything memdir does not change is kept byte for byte. */
export function editJson(text: string | null, next: JsonObject): string {
  if (text === null || text.trim() === '') return `${JSON.stringify(next, null, 2)}\n`;
  const before = jsonc.parse(text, [], { allowTrailingComma: true }) as JsonObject;
  return change(text, [], before, next, layoutOf(text));
}
