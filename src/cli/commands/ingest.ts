// `mem ingest <file>`: a conversation into the user's episodic log and, with an LLM, into memories.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';

import { ReportedFailure, UsageError, errorMessage } from '../../errors.js';
import type { IngestResult } from '../../services/ingest.js';
import { withMemory } from '../context.js';
import type { GlobalOptions, Io } from '../io.js';
import { requireUser } from './parse-options.js';

export interface IngestOptions extends GlobalOptions {
  user?: string;
  format?: 'json' | 'markdown';
  allowSecrets?: boolean;
}

export const OFFLINE_NOTE = 'no LLM configured (set MEM_LLM_MODEL): stored the conversation log only, no memories extracted';

function describe(r: IngestResult): string {
  const lines = [r.log.appended ? `logged ${r.turns} turns to ${r.log.path}` : `already in ${r.log.path} (${r.turns} turns): not logged again`];
  const x = r.extraction;
  if (x.status === 'offline') lines.push(OFFLINE_NOTE);
  else {
    lines.push(`extracted ${x.memories.length} memories with ${x.model}${x.status === 'failed' ? ' (extraction failed)' : ''}`);
    for (const m of x.memories) lines.push(`  ${m.action} ${m.id}  [${m.kind}, ${m.importance}] ${m.text}`);
  }
  for (const w of x.warnings) lines.push(`warning: ${w}`);
  return lines.join('\n');
}

export async function ingestCommand(file: string, opts: IngestOptions, io: Io): Promise<void> {
  const user = requireUser(opts.user);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${errorMessage(err)}`);
  }
  const result = await withMemory(opts, io, (memory) =>
    memory.ingest({
      user,
      text,
      source: basename(file),
      ...(opts.format ? { format: opts.format } : {}),
      ...(opts.allowSecrets ? { allowSecrets: true } : {}),
    }),
  );
  io.result(result, () => describe(result));
  if (result.extraction.status === 'offline' && io.json) io.note(OFFLINE_NOTE);
  // The log is stored, but the memories the caller asked for are not: a failure, after the report.
  if (result.extraction.status === 'failed')
    throw new ReportedFailure('extraction failed; the conversation log was stored (run again to retry the extraction)');
}
