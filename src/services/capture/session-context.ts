// Use case: the context block a coding agent gets at session start. Read from the memory files
// themselves (no index, no model): it works while the servers are cold and costs no start-up. Per
// scope (project, then personal), the user's active, unexpired memories: facts, preferences and
// how-tos by importance, then the latest episodes (the tail of the newest session logs), each block
// labelled as data within its share of the token budget.
import { decodeMemoryText } from '../../memory/decode.js';
import { hasLapsed } from '../../memory/lifecycle.js';
import type { MemoryDoc } from '../../memory/model.js';
import { parseMemory } from '../../memory/parse.js';
import type { MemoryFiles } from '../ports.js';
import { formatContext, type ContextItem } from '../retrieval/context.js';

export interface ContextScope {
  /** "project" or "personal": the label the agent sees. */
  scope: 'project' | 'personal';
  /** The project's name (project scope). */
  name?: string;
  files: MemoryFiles;
  defaultUser: string;
}

export interface SessionContext {
  text: string;
  /** Memories included, per scope. */
  included: Record<string, number>;
}

// A root's newest files are read first, and at most this many: the hook has a time budget.
const MAX_FILES = 2000;
const EPISODE_TAIL = 700;

const RANK: Record<string, number> = { semantic: 0, procedural: 0, working: 1, episodic: 2 };

async function activeDocs(scope: ContextScope, user: string, now: Date, deadline: number): Promise<MemoryDoc[]> {
  // A root nobody wrote to yet (no folder) simply has no memories.
  const { files } = await scope.files.scan({ folders: [user] }).catch(() => ({ files: [] }));
  const mine = files
    // The user's folder, and files at the top (their front matter names whose they are).
    .filter((f) => f.path.startsWith(`${user}/`) || !f.path.includes('/'))
    .sort((a, b) => b.mtimeMs - a.mtimeMs)
    .slice(0, MAX_FILES);
  const docs: MemoryDoc[] = [];
  for (const f of mine) {
    // Out of time: the newest files read so far make the context (a large root gives less, never late).
    if (Date.now() > deadline) break;
    try {
      const doc = parseMemory(decodeMemoryText(await scope.files.read(f.path), f.path), {
        path: f.path,
        defaultUser: scope.defaultUser,
        fallbackTime: new Date(f.mtimeMs).toISOString(),
      });
      const live = !hasLapsed(doc.meta.expires, now.getTime());
      if (doc.meta.user === user && doc.meta.status === 'active' && live) docs.push(doc);
    } catch {
      // An invalid file is reported by sync and doctor; here it is simply not offered.
    }
  }
  return docs;
}

// Provenance lines of the episodic log (its title, each session's source note) say nothing to the agent.
const LOG_NOISE = /^(# Conversations on .*|_Conversation from .*_)$/gm;

function item(doc: MemoryDoc): ContextItem {
  let content = doc.meta.type === 'episodic' ? doc.body.replace(LOG_NOISE, '').trim() : doc.body.trim();
  // A day's log holds whole sessions: its end (the latest one) is what a new session can use.
  if (doc.meta.type === 'episodic' && content.length > EPISODE_TAIL) content = `…${content.slice(-EPISODE_TAIL)}`;
  return { id: doc.meta.id, type: doc.meta.type, created: doc.meta.updated, content };
}

function ranked(docs: MemoryDoc[]): ContextItem[] {
  return [...docs]
    .sort(
      (a, b) =>
        (RANK[a.meta.type] ?? 3) - (RANK[b.meta.type] ?? 3) ||
        (a.meta.type === 'episodic' ? 0 : b.meta.importance - a.meta.importance) ||
        (a.meta.updated < b.meta.updated ? 1 : a.meta.updated > b.meta.updated ? -1 : 0),
    )
    .map(item);
}

const ABOUT = {
  project: (name?: string) => `Stored memories of this user about the project${name ? ` ${name}` : ''} (memdir project memory), recalled at session start.`,
  personal: () => 'Stored personal memories of this user (memdir personal memory, shared by all their projects), recalled at session start.',
};

/** The blocks of every scope; the project's first, each within its share of budgetTokens. */
export async function sessionContext(
  scopes: ContextScope[],
  user: string,
  budgetTokens: number,
  now: Date,
  deadline = Number.POSITIVE_INFINITY,
): Promise<SessionContext> {
  const loaded = (await Promise.all(scopes.map(async (s) => ({ s, items: ranked(await activeDocs(s, user, now, deadline)) })))).filter(
    (l) => l.items.length > 0,
  );
  const blocks: string[] = [];
  const included: Record<string, number> = {};
  let left = budgetTokens;
  loaded.forEach(({ s, items }, i) => {
    // The project gets 60% when a personal block follows; the last block gets what is left.
    const share = i === loaded.length - 1 ? left : Math.floor(left * 0.6);
    const block = formatContext(items, user, share, {
      attributes: { scope: s.scope, ...(s.name ? { project: s.name } : {}) },
      about: ABOUT[s.scope](s.name),
    });
    if (block.included.length === 0) return;
    blocks.push(block.text);
    included[s.scope] = block.included.length;
    left -= block.tokens;
  });
  return { text: blocks.join('\n\n'), included };
}
