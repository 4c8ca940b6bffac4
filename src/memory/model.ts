// The memory domain types: what a memory file means once parsed. Pure data, no I/O.

export const MEMORY_TYPES = ['working', 'episodic', 'semantic', 'procedural'] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];

export const MEMORY_STATUSES = ['active', 'superseded', 'expired', 'consolidated'] as const;
export type MemoryStatus = (typeof MEMORY_STATUSES)[number];

/** Front matter keys memdir understands, in the order it writes them. Other keys are kept as-is. */
export const KNOWN_KEYS = [
  'id',
  'user',
  'type',
  'importance',
  'status',
  'created',
  'updated',
  'expires',
  'key',
  'supersedes',
  'superseded_by',
  'consolidated_into',
  'source',
  'sources',
  'tags',
  'confidence',
] as const;

export interface MemoryMeta {
  id: string;
  user: string;
  type: MemoryType;
  importance: number;
  status: MemoryStatus;
  /** ISO 8601 timestamps. */
  created: string;
  updated: string;
  expires?: string;
  key?: string;
  /** The memory (or memories) this one corrects: a hand-written correction needs nothing else. */
  supersedes?: string | string[];
  superseded_by?: string;
  /** Set on an episodic memory folded into a summary by consolidation. */
  consolidated_into?: string;
  source?: string;
  sources?: string[];
  tags: string[];
  confidence?: number;
  /** Unknown front matter keys, preserved for round-trips. */
  extra: Record<string, unknown>;
}

/** A parsed memory file. `path` is relative to the memory root, with forward slashes. */
export interface MemoryDoc {
  path: string;
  meta: MemoryMeta;
  body: string;
  /** 1-based line of the file on which `body` starts (after the front matter). */
  bodyStartLine: number;
}

/** A searchable piece of a memory: a heading section or part of a long one. */
export interface Chunk {
  /** Heading path, e.g. "Trip to Lisbon > Day 2"; empty before the first heading. */
  heading: string;
  /** The Markdown source of the chunk. */
  text: string;
  /** 1-based, inclusive line range in the file. */
  lineStart: number;
  lineEnd: number;
}

/** The ids a `supersedes:` value names (one id or a list). */
export const idList = (value: string | string[] | undefined): string[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

export const DEFAULT_IMPORTANCE = 0.5;

// What the index's fields hold (adapters/milvus/schema.ts builds them from these), counted in characters as Milvus
// counts them. A longer value failed the whole sync's write, every file with it: a file over one is refused by its
// path (tags, path); a heading, only a label of its unit, is cut to fit.
export const MAX_TAGS = 64;
export const MAX_PATH_CHARS = 1024;
export const MAX_HEADING_CHARS = 2048;
export const DEFAULT_TYPE: MemoryType = 'semantic';
