// Use case: install memdir into a coding agent, or take it out again. Installing twice changes
// nothing the second time. Each file's text before and after memdir's edit is recorded under the
// memory root's `.mem/integrations/`, so an uninstall restores a file memdir alone changed byte for
// byte (and removes files and folders it created); a file changed since loses only memdir's part.
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
}

interface RecordedFile {
  path: string;
  before: string | null;
  after: string;
  createdDirs: string[];
}

interface InstallRecord {
  agent: AgentName;
  scope: string;
  files: RecordedFile[];
}

function recordPath(input: IntegrateInput): string {
  const where = input.scope === 'project' ? input.projectDir : input.home;
  return join(stateLayout(input.stateRoot).integrations, `${input.agent}-${input.scope}-${sha256(where).slice(0, 12)}.json`);
}

async function loadRecord(files: TextFiles, path: string): Promise<InstallRecord | null> {
  const text = await files.read(path);
  if (!text) return null;
  try {
    return JSON.parse(text) as InstallRecord;
  } catch {
    return null; // a damaged record: uninstall falls back to removing memdir's parts by content
  }
}

async function saveRecord(files: TextFiles, stateRoot: string, path: string, record: InstallRecord): Promise<void> {
  const ignore = join(stateLayout(stateRoot).dir, '.gitignore');
  // `.mem/` is private state: keep it out of the project's git like the rest of memdir does.
  if ((await files.read(ignore)) === null) await files.write(ignore, '*\n');
  await files.write(path, `${JSON.stringify(record, null, 2)}\n`);
}

export async function integrateAgent(files: TextFiles, input: IntegrateInput): Promise<IntegrateResult> {
  const plans = plansFor(input.agent, input);
  const where = recordPath(input);
  const record: InstallRecord = (await loadRecord(files, where)) ?? { agent: input.agent, scope: input.scope, files: [] };
  const result: IntegrateResult = { agent: input.agent, scope: input.scope, action: input.uninstall ? 'uninstall' : 'install', files: [] };

  if (!input.uninstall) {
    // Every plan is computed before anything is written: a file that does not parse changes nothing.
    const steps = await Promise.all(
      plans.map(async (p) => {
        const current = await files.read(p.path);
        return { p, current, next: p.install(current) };
      }),
    );
    for (const { p, current, next } of steps) {
      const known = record.files.find((f) => f.path === p.path);
      if (next === current) {
        // Already in place (a record lost, or installed by hand): what to restore is the text without it.
        if (!known && current !== null)
          record.files.push({ path: p.path, before: p.emptyWithout(current) ? null : p.uninstall(current), after: current, createdDirs: [] });
        result.files.push({ path: p.path, action: 'unchanged', what: p.what });
        continue;
      }
      const createdDirs = await files.write(p.path, next);
      if (known) known.after = next;
      else record.files.push({ path: p.path, before: current, after: next, createdDirs });
      result.files.push({ path: p.path, action: current === null ? 'created' : 'updated', what: p.what });
    }
    await saveRecord(files, input.stateRoot, where, record);
    return result;
  }

  // Folders memdir created go last, once every file in them is gone (a skill inside the settings' folder).
  const createdDirs: string[] = [];
  for (const p of plans) {
    const known = record.files.find((f) => f.path === p.path);
    const current = await files.read(p.path);
    if (current === null) {
      result.files.push({ path: p.path, action: 'absent', what: p.what });
    } else if (known && current === known.after) {
      // Nothing changed since memdir wrote it: put back exactly what was there.
      if (known.before === null) {
        await files.remove(p.path);
        createdDirs.push(...known.createdDirs);
        result.files.push({ path: p.path, action: 'removed', what: p.what });
      } else {
        await files.write(p.path, known.before);
        result.files.push({ path: p.path, action: 'restored', what: p.what });
      }
    } else {
      const next = p.uninstall(current);
      if (next === current) {
        result.files.push({ path: p.path, action: 'unchanged', what: 'nothing of memdir in it' });
      } else if (p.emptyWithout(current) && (known?.before ?? null) === null) {
        await files.remove(p.path);
        createdDirs.push(...(known?.createdDirs ?? []));
        result.files.push({ path: p.path, action: 'removed', what: p.what });
      } else {
        await files.write(p.path, next);
        result.files.push({ path: p.path, action: 'edited', what: `${p.what} removed; the rest of the file is kept as it is now` });
      }
    }
  }
  await files.removeEmptyDirs(createdDirs);
  await files.remove(where);
  return result;
}
