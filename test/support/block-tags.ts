// Counts what a model could read as a <memories> block tag in a tool's or hook's output: a `<`-like sign,
// blanks or a slash, then "memor" (after folding compatibility forms and dropping zero-width spaces).
export const blockTags = (text: string): number =>
  (
    text
      .normalize('NFKC')
      .replace(/\u200b/g, '')
      .match(/<\s*\/?\s*memor/gi) ?? []
  ).length;
