// `mem search`'s options, declared once: main.ts builds commander's options from them, and the daemon fast path
// (fast-search.ts) reads a command line by the same names, values, choices and defaults without loading commander.
import type { SearchOptions } from './commands/search.js';

export interface OptionSpec {
  /** As commander takes them: short and long names, `<value>` for an option that takes one, `--no-x` for a negation. */
  flags: string;
  key: keyof SearchOptions;
  description: string;
  choices?: readonly string[];
  default?: string;
}

export const SEARCH_OPTIONS: readonly OptionSpec[] = [
  { flags: '-u, --user <user>', key: 'user', description: 'whose memories (default: $MEM_USER)' },
  { flags: '--all-users', key: 'allUsers', description: 'search every user (explicit opt-in)' },
  { flags: '-t, --type <types>', key: 'type', description: 'only these types (comma-separated)' },
  { flags: '--tags <a,b>', key: 'tags', description: 'only memories with any of these tags' },
  { flags: '-k, --k <n>', key: 'k', description: 'how many memories to return', default: '8' },
  { flags: '--mode <mode>', key: 'mode', description: 'retrieval signals', choices: ['hybrid', 'dense', 'bm25'], default: 'hybrid' },
  { flags: '--fusion <fusion>', key: 'fusion', description: 'how dense and BM25 are combined', choices: ['weighted', 'rrf'] },
  { flags: '--no-rescore', key: 'rescore', description: 'rank by relevance alone (no recency or importance)' },
  { flags: '--format <format>', key: 'format', description: 'output', choices: ['text', 'json', 'context'], default: 'text' },
  { flags: '--budget <tokens>', key: 'budget', description: 'token budget of --format context', default: '800' },
  { flags: '--explain', key: 'explain', description: 'show each result’s score components and why it was eligible' },
  { flags: '--history', key: 'history', description: 'include superseded, consolidated and expired memories, marked' },
];

/** An option's names as typed (`-u`, `--user`), whether it takes a value, and what giving it sets. */
export function namesOf(spec: OptionSpec): { names: string[]; takesValue: boolean; negated: boolean } {
  const names = spec.flags
    .split(/[ ,]+/)
    .filter((part) => part.startsWith('-'))
    .map((part) => part.trim());
  return { names, takesValue: spec.flags.includes('<'), negated: names.some((n) => n.startsWith('--no-')) };
}
