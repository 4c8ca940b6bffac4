// Writes one consolidated memory for a group and marks the originals `consolidated` (used by consolidate and by forget's regeneration).
import { newMemoryId } from '../../memory/ids.js';
import { memoryPath } from '../../memory/layout.js';
import { MAX_TAGS, type MemoryDoc, type MemoryMeta } from '../../memory/model.js';
import { serializeMemory } from '../../memory/serialize.js';
import type { DepsUsing } from '../core/deps.js';
import type { SyncIndex } from '../core/sync.js';
import { rewriteMemory } from '../core/rewrite.js';
import { llmSummary } from './llm-summary.js';
import { extractiveSummary, summaryBody, summaryTitle, type SourceMemory } from './summary.js';

export interface WrittenSummary {
  id: string;
  path: string;
  sources: string[];
  summarisedBy: 'llm' | 'extractive';
  /** Every file written: the summary and the originals. */
  touched: string[];
}

export async function writeSummary(deps: DepsUsing<SyncIndex>, user: string, group: MemoryDoc[], now: Date): Promise<WrittenSummary> {
  const docs = [...group].sort((a, b) => a.meta.created.localeCompare(b.meta.created));
  const sources: SourceMemory[] = docs.map((d) => ({ id: d.meta.id, created: d.meta.created, text: d.body.trim() }));
  const fromLlm = deps.llm ? await llmSummary(deps.llm, sources) : undefined;
  const id = newMemoryId(summaryTitle(sources).replace(/^Summary:\s*/, ''), now);
  const meta: MemoryMeta = {
    id,
    user,
    type: 'semantic',
    importance: Math.max(...docs.map((d) => d.meta.importance)),
    status: 'active',
    created: now.toISOString(),
    updated: now.toISOString(),
    // The sources' tags, as many as a memory holds (the index's limit): a summary the sync refused would be lost.
    tags: [...new Set(docs.flatMap((d) => d.meta.tags))].slice(0, MAX_TAGS),
    source: fromLlm ? `consolidation:${deps.llm!.model}` : 'consolidation',
    sources: sources.map((s) => s.id),
    extra: {},
  };
  const path = memoryPath(user, 'semantic', id);
  await deps.files.write(path, serializeMemory(meta, summaryBody(sources, fromLlm ?? extractiveSummary(sources))));
  for (const d of docs) {
    await rewriteMemory(deps, d.path, (m) => ({ ...m, status: 'consolidated', consolidated_into: id, updated: now.toISOString() }));
  }
  return { id, path, sources: meta.sources!, summarisedBy: fromLlm ? 'llm' : 'extractive', touched: [path, ...docs.map((d) => d.path)] };
}
