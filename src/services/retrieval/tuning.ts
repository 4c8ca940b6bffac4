// The ranking's tuning knobs: what a benchmark varies to measure each signal's share. Not part of the library's
// SearchInput (a user sets the query, scope and mode, not these); the search takes them as a separate argument.
import type { DiversityOptions } from './diversity.js';
import type { FileScoreOptions } from './file-score.js';
import type { ContextOptions } from './neighbours.js';
import type { PriorOptions } from './prior.js';

export interface RankingTuning {
  /** Shares of adjacent chunks' and of the file's relevance (default DEFAULT_CONTEXT; NO_CONTEXT turns them off). */
  context?: ContextOptions;
  /** Share of the best containing window's relevance (default DEFAULT_WINDOW_SHARE; 0 searches no windows). */
  windows?: number;
  /** Units of this many best windows join the candidates when neither list found them (default DEFAULT_EXPAND). */
  expand?: number;
  /**
   * Share of the best containing window's relevance every unit gains on top of its own (default SECOND_WINDOW_TERM
   * when the second dense field answered, else DEFAULT_WINDOW_TERM; 0 turns it off).
   */
  windowTerm?: number;
  /**
   * Share of the relevance of the unit beside it that a unit alone in its section gains from a neighbour opening the
   * next section, where no window reaches (default DEFAULT_SECTION_NEIGHBOUR; 0 turns it off).
   */
  sectionNeighbour?: number;
  /** Share of relevance for containing the names the query mentions (default DEFAULT_NAME_SHARE; 0 turns it off). */
  names?: number;
  /** Share of relevance for a date in a period the query names (default DEFAULT_DATE_SHARE; 0 turns it off). */
  dates?: number;
  /** Share of the section's relevance (mean of its best candidates) a unit gains (default DEFAULT_PRIOR). */
  prior?: PriorOptions;
  /** Share of the dense signal in weighted fusion (default: the configured one). */
  denseWeight?: number;
  /** Share of the second dense field in a unit's relevance (default DEFAULT_SECOND_SHARE when one is configured; 0 turns it off). */
  second?: number;
  /** How the top k is spread over files or sections (default DEFAULT_DIVERSITY; NO_DIVERSITY keeps the ranking). */
  diversity?: DiversityOptions;
  /**
   * Per memory only: shares of a file's second and third best units in its relevance (default
   * DEFAULT_FILE_SCORE; NO_FILE_SCORE ranks a file by its best unit alone).
   */
  files?: FileScoreOptions;
  /** Candidates per signal before fusion (default MIN_CANDIDATES, or 5·k when larger). */
  candidates?: number;
  /**
   * Recency counts from a memory's last recorded access when that is later than its own date (default true). false
   * ranks as a fresh index would: earlier searches of the root move nothing, so a benchmark's figures are its own.
   */
  recordedAccess?: boolean;
}

/** The shipped ranking: every knob at its default. */
export const NO_TUNING: RankingTuning = {};
