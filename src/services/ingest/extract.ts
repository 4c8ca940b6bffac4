// Asks the LLM for the memories in a transcript, window by window, and keeps only answers that fit the schema.
import { errorMessage } from '../../errors.js';
import type { Llm } from '../ports.js';
import { EXTRACT_SYSTEM, extractAnswer, extractedMemory, extractUserMessage, type ExtractedMemory } from './extract-prompt.js';
import type { Turn } from './transcript.js';

// Long conversations go to the LLM in parts that fit a small model's context.
const WINDOW_CHARS = 12_000;

export interface Extraction {
  memories: ExtractedMemory[];
  warnings: string[];
  /** Windows whose request or answer failed entirely. */
  failedWindows: number;
  windows: number;
}

function renderTurn(t: Turn): string {
  const text = t.content.length > WINDOW_CHARS ? `${t.content.slice(0, WINDOW_CHARS)} [...]` : t.content;
  return `[${t.role}${t.time ? ` ${t.time}` : ''}] ${text}`;
}

export function windows(turns: Turn[]): string[] {
  const out: string[] = [];
  let current: string[] = [];
  let size = 0;
  for (const line of turns.map(renderTurn)) {
    if (size + line.length > WINDOW_CHARS && current.length > 0) {
      out.push(current.join('\n'));
      current = [];
      size = 0;
    }
    current.push(line);
    size += line.length + 1;
  }
  if (current.length > 0) out.push(current.join('\n'));
  return out;
}

export async function extractMemories(llm: Llm, turns: Turn[], context: { source: string; day: string }): Promise<Extraction> {
  const result: Extraction = { memories: [], warnings: [], failedWindows: 0, windows: 0 };
  const parts = windows(turns);
  result.windows = parts.length;
  const seen = new Set<string>();
  for (const [i, part] of parts.entries()) {
    const where = parts.length > 1 ? ` (part ${i + 1} of ${parts.length})` : '';
    let answer: unknown;
    try {
      answer = await llm.completeJson({ system: EXTRACT_SYSTEM, user: extractUserMessage(part, context) });
    } catch (err) {
      result.failedWindows++;
      result.warnings.push(`extraction failed${where}: ${errorMessage(err)}`);
      continue;
    }
    const outer = extractAnswer.safeParse(answer);
    if (!outer.success) {
      result.failedWindows++;
      result.warnings.push(
        `the LLM's answer${where} is not {"memories": [...]}: ${outer.error.issues[0]?.message ?? 'wrong shape'}; nothing extracted from it`,
      );
      continue;
    }
    outer.data.memories.forEach((item, j) => {
      const parsed = extractedMemory.safeParse(item);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        result.warnings.push(`skipped memory ${j + 1}${where} from the LLM: ${issue.path.join('.') || 'item'}: ${issue.message}`);
        return;
      }
      const key = parsed.data.text.toLowerCase().replace(/\s+/g, ' ');
      if (seen.has(key)) return; // the same memory from two windows
      seen.add(key);
      result.memories.push(parsed.data);
    });
  }
  return result;
}
