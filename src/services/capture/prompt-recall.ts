// The prompt hook's use case: the search daemon of each root answers within the hook's budget, and what it
// found goes to the agent as context; a root whose daemon is cold goes without and is warmed for the next prompt.
import { maskSecrets } from '../../memory/secrets.js';
import { formatContext } from '../retrieval/context.js';
import type { SearchResult } from '../search.js';
import { additionalContext, type HookOutcome } from './hook-protocol.js';
import { TIMEOUT, within } from './within.js';

export interface RecallPorts {
  /** The daemon's results for a root, or null when it did not answer (a cold root). */
  ask(root: string, query: string, user: string, ms: number): Promise<SearchResult[] | null>;
  /** Starts a cold root's daemon for the next prompt. */
  warm(root: string): Promise<void>;
}

export interface RecallInput {
  query: string;
  user: string;
  projectRoot: string;
  /** Why there is no project memory: then the person's memory alone is asked. */
  noProject?: string;
  personalRoot: string;
  promptTokens: number;
  /** What is left of the hook's budget. */
  ms: number;
}

export async function promptRecall(ports: RecallPorts, input: RecallInput): Promise<HookOutcome> {
  const { query, user, ms } = input;
  const note = input.noProject ? `${input.noProject}; ` : '';
  const roots = [...(input.noProject ? [] : [{ scope: 'project', root: input.projectRoot }]), { scope: 'personal', root: input.personalRoot }];
  const cold: string[] = [];
  const answers = await within(
    ms,
    Promise.all(
      roots.map(async (r) => {
        const results = await ports.ask(r.root, query, user, Math.max(1, Math.round(ms)));
        if (results) return { ...r, results };
        cold.push(r.root);
        await ports.warm(r.root);
        return { ...r, results: [] as SearchResult[] };
      }),
    ),
  );
  if (answers === TIMEOUT)
    return {
      error: 'the search daemon did not answer within the 1 s budget: no recall for this prompt',
      hint: '`mem setup --root <root>` starts the servers ahead of time',
    };
  const blocks = answers
    .filter((a) => a.results.length > 0)
    .map(
      (a) =>
        formatContext(a.results, user, Math.floor(input.promptTokens / 2), {
          attributes: { scope: a.scope },
          about: `Stored ${a.scope} memories of this user relevant to the prompt (memdir).`,
          query,
        }).text,
    );
  const output = blocks.length ? additionalContext('UserPromptSubmit', await maskSecrets(blocks.join('\n\n'))) : undefined;
  const found = answers.reduce((n, a) => n + a.results.length, 0);
  return cold.length
    ? {
        output,
        detail: `${note}recalled ${found}`,
        error: `servers cold for ${cold.join(', ')}: recall skipped there; starting them in the background`,
        hint: '`mem setup --root <root>` starts them ahead of time',
      }
    : { output, detail: `${note}recalled ${found}` };
}
