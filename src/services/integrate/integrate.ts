// Use case: install memdir into a coding agent, or take it out again. Installing twice changes
// nothing the second time. Edits are made in place and undone in place, so an uninstall gives back a
// file memdir alone changed byte for byte (and removes files and folders it created); a file changed
// since loses only memdir's part. The record under the memory root's `.mem/integrations/` (owner-only)
// holds what memdir did, never the person's text.
import { join } from 'node:path';

import { sha256 } from '../../memory/hash.js';
import { stateLayout } from '../../memory/layout.js';
import type { TextFiles } from '../ports.js';
import { plansFor, type AgentName, type IntegrateSetup } from './agents.js';

export interface IntegrateInput extends IntegrateSetup {
  agent: AgentName;
  /** The memory root whose `.mem/` keeps the record (the project's for project scope, else the personal one). */
  stateRoot: string;
  uninstall?: boolean;
}

export type FileAction = 'created' | 'updated' | 'unchanged' | 'restored' | 'removed' | 'edited' | 'absent';

export interface IntegrateResult {
  agent: AgentName;
  scope: IntegrateSetup['scope'];
  action: 'install' | 'uninstall';
  files: { path: string; action: FileAction; what: string }[];
  /** What the install left out, and why (the person's own setting kept); absent when none. */
  warnings?: string[];
}

/**
 * What the record keeps of one file: whether memdir created it, the folders it created, and hashes of the text before
 * and after its edit. Never the text itself: a settings file can hold another program's secrets (an MCP server's
 * token), and the record must not become a second copy of them. The hashes tell an uninstall whether the file is as
 * memdir left it, and whether taking memdir's part out gave back exactly the file it found.
 */
interface RecordedFile {
  path: string;
  created: boolean;
  createdDirs: string[];
  beforeSha256: string | null;
  afterSha256: string;
}

interface InstallRecord {
  version: 2;
  agent: AgentName;
  scope: string;
  files: RecordedFile[];
}

/** A record as earlier versions wrote it: the whole text before and after (replaced by hashes on first read). */
interface LegacyRecordedFile {
  path: string;
  before: string | null;
  after: string;
  createdDirs: string[];
}

function recordPath(input: IntegrateInput): string {
  const where = input.scope === 'project' ? input.projectDir : input.home;
  return join(stateLayout(input.stateRoot).integrations, `${input.agent}-${input.scope}-${sha256(where).slice(0, 12)}.json`);
}

function fromLegacy(f: RecordedFile | LegacyRecordedFile): RecordedFile {
  if (!('after' in f)) return f;
  return {
    path: f.path,
    created: f.before === null,
    createdDirs: f.createdDirs,
    beforeSha256: f.before === null ? null : sha256(f.before),
    afterSha256: sha256(f.after),
  };
}

async function loadRecord(files: TextFiles, path: string): Promise<InstallRecord | null> {
  const text = await files.read(path);
  if (!text) return null;
  try {
    const data = JSON.parse(text) as Omit<InstallRecord, 'files' | 'version'> & { files: (RecordedFile | LegacyRecordedFile)[] };
    return { version: 2, agent: data.agent, scope: data.scope, files: data.files.map(fromLegacy) };
  } catch {
    return null; // a damaged record: uninstall falls back to removing memdir's parts by content
  }
}

async function saveRecord(files: TextFiles, input: IntegrateInput, path: string, record: InstallRecord): Promise<void> {
  const state = stateLayout(input.stateRoot).dir;
  // Owner-only from the personal root down (it is private as a whole), or from a project's `.mem/`.
  const ownerOnly = input.stateRoot === input.personalRoot ? input.stateRoot : state;
  const ignore = join(state, '.gitignore');
  // `.mem/` is private state: keep it out of the project's git like the rest of memdir does.
  if ((await files.read(ignore)) === null) await files.write(ignore, '*\n', { ownerOnly });
  await files.write(path, `${JSON.stringify(record, null, 2)}\n`, { ownerOnly });
}

/** The text without memdir's part: as it was before the install when the recorded hash can tell (a final newline added by it). */
function exactly(next: string, beforeSha256: string | null | undefined): string {
  if (beforeSha256 && sha256(next) !== beforeSha256 && next.endsWith('\n') && sha256(next.slice(0, -1)) === beforeSha256) return next.slice(0, -1);
  return next;
}

export async function integrateAgent(files: TextFiles, input: IntegrateInput): Promise<IntegrateResult> {
  const plans = plansFor(input.agent, input);
  const where = recordPath(input);
  const record: InstallRecord = (await loadRecord(files, where)) ?? { version: 2, agent: input.agent, scope: input.scope, files: [] };
  const result: IntegrateResult = { agent: input.agent, scope: input.scope, action: input.uninstall ? 'uninstall' : 'install', files: [] };
  // Every file is read, and every plan computed, before anything is written: a file that does not parse, a value in
  // the way or a folder where a file should be changes nothing.
  const currents = await Promise.all(plans.map((p) => files.read(p.path)));

  if (!input.uninstall) {
    const steps = plans.map((p, i) => ({ p, current: currents[i]!, next: p.install(currents[i]!) }));
    for (const { p, current, next } of steps) {
      const known = record.files.find((f) => f.path === p.path);
      const caveat = p.caveat?.(current);
      const what = p.whatFor?.(current) ?? p.what;
      if (caveat) (result.warnings ??= []).push(caveat);
      if (next === current) {
        // Already in place (a record lost, or installed by hand): what to restore is the text without it.
        if (!known && current !== null) {
          const created = p.emptyWithout(current);
          record.files.push({
            path: p.path,
            created,
            createdDirs: [],
            beforeSha256: created ? null : sha256(p.uninstall(current)),
            afterSha256: sha256(current),
          });
        }
        result.files.push({ path: p.path, action: 'unchanged', what });
        continue;
      }
      const createdDirs = await files.write(p.path, next);
      if (known) known.afterSha256 = sha256(next);
      else
        record.files.push({
          path: p.path,
          created: current === null,
          createdDirs,
          beforeSha256: current === null ? null : sha256(current),
          afterSha256: sha256(next),
        });
      result.files.push({ path: p.path, action: current === null ? 'created' : 'updated', what });
    }
    await saveRecord(files, input, where, record);
    return result;
  }

  // Folders memdir created go last, once every file in them is gone (a skill inside the settings' folder).
  const createdDirs: string[] = [];
  const steps = plans.map((p, i) => ({ p, current: currents[i]!, next: currents[i] === null ? null : p.uninstall(currents[i]!) }));
  for (const { p, current, next } of steps) {
    const known = record.files.find((f) => f.path === p.path);
    if (current === null || next === null) {
      result.files.push({ path: p.path, action: 'absent', what: p.what });
    } else if (next === current) {
      result.files.push({ path: p.path, action: 'unchanged', what: 'nothing of memdir in it' });
    } else if (p.emptyWithout(current) && (known?.created ?? true)) {
      // Nothing in it but memdir's part, in a file memdir made: it goes, with the folders made for it.
      await files.remove(p.path);
      createdDirs.push(...(known?.createdDirs ?? []));
      result.files.push({ path: p.path, action: 'removed', what: p.what });
    } else {
      const text = exactly(next, known?.beforeSha256);
      await files.write(p.path, text);
      if (known && sha256(text) === known.beforeSha256) result.files.push({ path: p.path, action: 'restored', what: p.what });
      else result.files.push({ path: p.path, action: 'edited', what: `${p.what} removed; the rest of the file is kept as it is now` });
    }
  }
  await files.removeEmptyDirs(createdDirs);
  await files.remove(where);
  return result;
}
