// The session-start hook's use case: the project's and the person's memories, read from the files (no servers
// needed) within the hook's budget, as the context the agent adds for the model.
import { maskSecrets } from '../../memory/secrets.js';
import type { MemoryFiles } from '../ports.js';
import { additionalContext, type HookOutcome } from './hook-protocol.js';
import { sessionContext, type ContextScope } from './session-context.js';
import { TIMEOUT, within } from './within.js';

export interface SessionStartInput {
  projectRoot: string;
  projectName: string;
  /** Why there is no project memory: then the person's memory alone is read. */
  noProject?: string;
  personalRoot: string;
  defaultUser: string;
  user: string;
  contextTokens: number;
  /** What is left of the hook's budget. */
  ms: number;
}

export async function sessionStartContext(filesOf: (root: string) => Promise<MemoryFiles>, input: SessionStartInput): Promise<HookOutcome> {
  const { defaultUser, ms } = input;
  const scopes: ContextScope[] = input.noProject ? [] : [{ scope: 'project', name: input.projectName, files: await filesOf(input.projectRoot), defaultUser }];
  if (input.noProject || input.personalRoot !== input.projectRoot) scopes.push({ scope: 'personal', files: await filesOf(input.personalRoot), defaultUser });
  // Files are read until shortly before the budget ends, so a large root still answers in time.
  const built = await within(ms, sessionContext(scopes, input.user, input.contextTokens, new Date(), Date.now() + ms - 250));
  if (built === TIMEOUT) {
    return {
      output: undefined,
      error: 'the memory files could not be read within the time budget: no context this session',
      hint: 'a very large root or a slow disk; `mem status` shows its size',
    };
  }
  const counts =
    Object.entries(built.included)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ') || 'no memories';
  return {
    // The context goes to the model's provider: a secret in a memory file is masked there.
    output: built.text ? additionalContext('SessionStart', await maskSecrets(built.text)) : undefined,
    detail: `${input.noProject ? `${input.noProject}; ` : ''}injected ${counts}`,
  };
}
