// `mem show <id>`: a memory, its supersede chain, its consolidation sources and its git history.
import { hasLapsed } from '../../memory/lifecycle.js';
import type { ChainLink, ShowResult } from '../../services/show.js';
import { withMemory } from '../context.js';
import type { GlobalOptions, Io } from '../io.js';
import { actingUser } from './parse-options.js';

export interface ShowOptions extends GlobalOptions {
  user?: string;
}

const linkLine = (l: ChainLink, current: string) =>
  `  ${l.id === current ? '→' : ' '} ${l.id}  [${l.status}${l.created ? `, ${l.created.slice(0, 10)}` : ''}]${l.summary ? `  ${l.summary}` : ''}`;

/** The status as its file says it; an active memory past its expiry is already out of search (a filter at read time). */
function statusLine(m: ShowResult['memory'], at: Date): string {
  if (m.status !== 'active' || !hasLapsed(m.expires, at.getTime())) return m.status;
  return `active (expired ${m.expires}: no longer searched; \`mem gc\` marks the file)`;
}

export function formatShow({ memory: m, chain, sources, history }: ShowResult, at: Date = new Date()): string {
  const fields = [
    ['user', m.user],
    ['type', m.type],
    ['status', statusLine(m, at)],
    ['importance', String(m.importance)],
    ['created', m.created],
    ['updated', m.updated],
    ['expires', m.expires],
    ['key', m.key],
    ['source', m.source],
    ['supersedes', m.supersedes],
    ['superseded_by', m.superseded_by],
    ['consolidated_into', m.consolidated_into],
    ['tags', m.tags.join(', ') || undefined],
  ].filter(([, v]) => v !== undefined);
  const out = [`${m.id}  (${m.path})`, ...fields.map(([k, v]) => `  ${k}: ${v}`), '', m.content, ''];
  if (chain.length > 1) out.push('supersede chain (oldest first):', ...chain.map((l) => linkLine(l, m.id)), '');
  if (sources.length > 0) out.push('summarises:', ...sources.map((l) => linkLine(l, m.id)), '');
  out.push(
    'history:',
    ...(history.length
      ? history.map((h) => `  ${h.commit.slice(0, 10)} ${h.date}  ${h.subject}`)
      : ['  (no commits: git is off or the file is not committed)']),
  );
  return out.join('\n');
}

export async function showCommand(id: string, opts: ShowOptions, io: Io): Promise<void> {
  const user = actingUser(opts.user);
  const result = await withMemory(opts, io, (memory) => memory.show({ id, ...(user ? { user } : {}) }));
  io.result(result, () => formatShow(result));
}
