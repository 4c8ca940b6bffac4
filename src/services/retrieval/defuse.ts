// Keeps stored data from closing or faking the <memories> block an agent reads it in: every field that
// reaches an agent (text, id, tags, key, source…) passes through here. Pure.

// Characters a model may read as "<": the ASCII one and its look-alikes (full-width, small, angle brackets).
const OPENERS = /[<\u02C2\u2039\u2329\u27E8\u276C\u276E\u3008\u29FC\uFE64\uFF1C]/gu;
// What may stand between the opener and the tag name without a model noticing: spaces, invisible
// format characters (zero-width space, joiners, bidi marks), slashes and backslashes.
const IGNORABLE = /[\s\p{Cf}/\\\u2044\u2215\u29F8]/gu;
// Letters of other scripts that look like those of "memor(y|ies)".
const CONFUSABLE: Record<string, string> = { е: 'e', ε: 'e', о: 'o', ο: 'o', м: 'm', г: 'r', і: 'i', ι: 'i', ѕ: 's', у: 'y' };

/** What a model reads in the characters after an opener: compatibility forms folded, invisible ones dropped. */
function readAhead(text: string, from: number): string {
  return text
    .slice(from, from + 48)
    .normalize('NFKC')
    .replace(IGNORABLE, '')
    .toLowerCase()
    .replace(/./gu, (c) => CONFUSABLE[c] ?? c);
}

/**
 * Multi-line text inside the block: an opener followed by "memor…" (so `</memories>`, `< /memories>`,
 * `＜/memories＞`, `<\u200b/memory`…) becomes `<\`, which closes and opens nothing.
 */
export function defuseText(text: string): string {
  return text.replace(OPENERS, (opener: string, offset: number) => (readAhead(text, offset + opener.length).startsWith('memor') ? '<\\' : opener));
}

/** A one-line metadata value (id, tag, key, source, date…): no line breaks that could start a fake entry, and defused. */
export function defuseField(value: string): string {
  return defuseText(value.replace(/[\p{Cc}\u2028\u2029]+/gu, ' '));
}

// An opener with nothing after it on its line but what a model skips (IGNORABLE less the line break itself): the next
// line's start decides what it opens.
const OPENER_AT_LINE_END = new RegExp(`${OPENERS.source}(?=[ \\t\\p{Cf}/\\\\\\u2044\\u2215\\u29F8]*\\n)`, 'gu');

/**
 * Lines each defused on their own, joined: an opener ending one line and "memor…" starting the next (`x <` then
 * `/memories>`) would read as a block tag across the break; that opener becomes `<\` too.
 */
export function defuseJoins(text: string): string {
  return text.replace(OPENER_AT_LINE_END, (opener: string, offset: number) => (readAhead(text, offset + opener.length).startsWith('memor') ? '<\\' : opener));
}
