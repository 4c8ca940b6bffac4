// The bare text of a unit, for a second dense model that mean-pools every token (all-mpnet-base-v2): the
// unit's own words, without the heading path its embedding text starts with and without Markdown emphasis. Pure.

// The heading path is a large share of a short unit (27 of a turn's 70 tokens, median): mean pooling
// then pulls every unit of a section towards the same point (measured: docs/decisions/second-dense-field.md).
// The first unit of a section starts with the heading line itself (its text is embedded as is): that line
// goes too, unless it is all the unit holds.
const LEADING_HEADINGS = /^(?:#{1,6}[ \t][^\n]*\n+)+(?=\S)/;
function withoutHeading(content: string, heading: string): string {
  const text = heading && content.startsWith(`${heading}\n\n`) ? content.slice(heading.length + 2) : content;
  return text.replace(LEADING_HEADINGS, '');
}

// `mem ingest`'s turn line (services/ingest/episodic-log.ts) is `**Name** (HH:MM): text`: the clock time
// is four digits that say nothing about the content (the date signal reads times; the model does not).
const TURN_TIME = /^(\*\*[^*\n]+\*\*) \(\d{1,2}:\d{2}\):/gm;
// Strong and emphasis markers around words; snake_case and 2 * 3 are left alone.
const STRONG = /(\*\*|__)(?=\S)([^\n]*?\S)\1/g;
const EMPHASIS = /(^|[^\w*])([*_])(?=\S)([^\n*_]*?\S)\2(?![\w*])/g;
const HEADING_MARK = /^#{1,6}\s+/gm;

/**
 * The unit's text as the second model reads it: `content` is the unit's embedding text (heading path, a
 * blank line, the unit), `heading` its heading path. "## Day 2\n\n**Ana** (10:04): *so* tired" reads
 * "Ana: so tired".
 */
export function bareTextOf(content: string, heading: string): string {
  return withoutHeading(content, heading).replace(TURN_TIME, '$1:').replace(STRONG, '$2').replace(EMPHASIS, '$1$3').replace(HEADING_MARK, '').trim();
}
