// The prompt hook's use case: the search daemon of each root answers within the hook's budget, and what it
// found goes to the agent as context; a root whose daemon is cold goes without and is warmed for the next prompt.
import type { ContextLabel } from '../retrieval/context.js';
import type { SearchResult } from '../search.js';
import { additionalContext, type HookOutcome } from './hook-protocol.js';
import { TIMEOUT, within } from './within.js';

/** The context block a root's answer should come as: its token budget and its label. */
export interface BlockWanted extends Required<Pick<ContextLabel, 'about' | 'attributes'>> {
  tokens: number;
}

/** The block of a root's memories in a prompt's context: half the hook's tokens each, labelled by scope. */
export function blockWanted(scope: 'project' | 'personal', promptTokens: number): BlockWanted {
  return {
    tokens: Math.floor(promptTokens / 2),
    attributes: { scope },
    about: `Stored ${scope} memories of this user relevant to the prompt (memdir).`,
  };
}

export interface RecallAnswer {
  results: SearchResult[];
  /** The results' block as wanted, secrets masked, when the daemon rendered it. */
  block?: string;
}

export interface RecallPorts {
  /** The daemon's answer for a root, or null when it did not answer (a cold root). */
  ask(root: string, query: string, user: string, ms: number, block: BlockWanted): Promise<RecallAnswer | null>;
  /** Starts a cold root's daemon for the next prompt. */
  warm(root: string): Promise<void>;
  /** Whether the root may hold a memory: one that cannot (not there, or only a hook's log in it) is not asked nor warmed. */
  mayHoldMemories(root: string): boolean;
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

/**
 * A block the daemon did not render (a daemon from before it could) is rendered and masked here. Loaded only then:
 * the layout and the secret scanner are a third of the hook's modules.
 */
async function renderHere(results: SearchResult[], user: string, query: string, wanted: BlockWanted): Promise<string> {
  const { maskedContext } = await import('../retrieval/masked-context.js');
  return maskedContext(results, user, wanted.tokens, { attributes: wanted.attributes, about: wanted.about, query });
}

export async function promptRecall(ports: RecallPorts, input: RecallInput): Promise<HookOutcome> {
  const { query, user, ms } = input;
  const note = input.noProject ? `${input.noProject}; ` : '';
  const roots = [
    ...(input.noProject ? [] : [{ scope: 'project' as const, root: input.projectRoot }]),
    { scope: 'personal' as const, root: input.personalRoot },
  ].filter((r) => ports.mayHoldMemories(r.root));
  const cold: string[] = [];
  const wanted = (scope: 'project' | 'personal') => blockWanted(scope, input.promptTokens);
  const answers = await within(
    ms,
    Promise.all(
      roots.map(async (r) => {
        const answer = await ports.ask(r.root, query, user, Math.max(1, Math.round(ms)), wanted(r.scope));
        if (answer) return { ...r, ...answer };
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
  const blocks = await Promise.all(
    answers.filter((a) => a.results.length > 0).map((a) => (a.block === undefined ? renderHere(a.results, user, query, wanted(a.scope)) : a.block)),
  );
  const output = blocks.length ? additionalContext('UserPromptSubmit', blocks.join('\n\n')) : undefined;
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
