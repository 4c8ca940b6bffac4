// Memory text placed inside a labelled <memories> block for a model cannot close that block or open
// another one: shared by the MCP tools and the context blocks agents' hooks inject. Pure.

/** A memory's text cannot end the block or open a new one. */
export function defuse(text: string): string {
  return text.replace(/<(\/?)(memor(?:y|ies))\b/gi, (_m, slash: string, word: string) => `<\\${slash}${word}`);
}
