// `mem search`: a user's eligible memories for a query.
import type { SearchResult } from '../../services/search.js';
import { withMemory } from '../context.js';
import type { GlobalOptions, Io } from '../io.js';
import { parseList, parsePositiveInt, parseTypes } from './parse-options.js';

export interface SearchOptions extends GlobalOptions {
  user?: string;
  allUsers?: boolean;
  type?: string;
  tags?: string;
  k: string;
  mode?: string;
}

function formatResults(results: SearchResult[]): string {
  if (results.length === 0) return 'no matching memories';
  return results
    .map((r, i) => {
      const excerpt = r.content.replace(/\s+/g, ' ').trim();
      const short = excerpt.length > 240 ? `${excerpt.slice(0, 237)}...` : excerpt;
      return `${i + 1}. ${r.id}  [${r.type}, ${r.created.slice(0, 10)}, score ${r.score.toFixed(4)}]\n   ${short}\n   ${r.path}:${r.lines[0]}`;
    })
    .join('\n');
}

export async function searchCommand(query: string, opts: SearchOptions, io: Io): Promise<void> {
  const user = opts.allUsers ? undefined : (opts.user ?? process.env.MEM_USER);
  const types = parseTypes(opts.type);
  const mode = opts.mode as 'hybrid' | 'dense' | 'bm25' | undefined;
  const results = await withMemory(opts, io, (memory) =>
    memory.search({
      query,
      k: parsePositiveInt(opts.k, '-k', 200),
      ...(user ? { user } : {}),
      ...(opts.allUsers ? { allUsers: true } : {}),
      ...(types ? { types } : {}),
      ...(opts.tags ? { tags: parseList(opts.tags) } : {}),
      ...(mode ? { mode } : {}),
    }),
  );
  io.result({ results }, () => formatResults(results));
}
