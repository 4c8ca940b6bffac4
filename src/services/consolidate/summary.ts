// The text of a consolidated memory: a summary (extractive offline, or the LLM's), the date range, and its sources. Pure.

export interface SourceMemory {
  id: string;
  created: string;
  text: string;
}

const day = (iso: string) => iso.slice(0, 10);
const oneLine = (text: string) =>
  text
    .replace(/^#+\s*/gm, '')
    .replace(/\s+/g, ' ')
    .trim();

export function period(sources: SourceMemory[]): { from: string; to: string } {
  const days = sources.map((s) => day(s.created)).sort();
  return { from: days[0]!, to: days[days.length - 1]! };
}

/** A title from the opening words of the oldest memory (also the slug of the new id). */
export function summaryTitle(sources: SourceMemory[]): string {
  const words = oneLine(sources[0]!.text).split(' ').slice(0, 8).join(' ');
  return `Summary: ${words}${oneLine(sources[0]!.text).split(' ').length > 8 ? '…' : ''}`;
}

/** Offline: every original, one dated line each, duplicates dropped; nothing specific is lost. */
export function extractiveSummary(sources: SourceMemory[]): string {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const s of [...sources].sort((a, b) => a.created.localeCompare(b.created))) {
    const text = oneLine(s.text);
    if (seen.has(text.toLowerCase())) continue;
    seen.add(text.toLowerCase());
    lines.push(`- ${day(s.created)}: ${text.length > 600 ? `${text.slice(0, 597)}...` : text}`);
  }
  return lines.join('\n');
}

/** The whole Markdown body: title, date range, summary, and a citation of every source id. */
export function summaryBody(sources: SourceMemory[], summary: string): string {
  const { from, to } = period(sources);
  const range = from === to ? from : `${from} to ${to}`;
  return [
    `# ${summaryTitle(sources)}`,
    '',
    `Consolidated from ${sources.length} memories, ${range}.`,
    '',
    summary.trim(),
    '',
    `Sources: ${sources.map((s) => s.id).join(', ')}`,
    '',
  ].join('\n');
}
