// Work a search does while it waits for the index: what needs only the query (the dates it names), and reading ahead
// the files its first lexical hits come from. The dense answers come after the query's embedding, and the lexical
// ones before them; the expansion and the excerpts then read and parse a handful of files, milliseconds each, that
// the wait can pay for instead.
import type { IndexHit } from '../ports.js';
import type { FileUnits } from './file-units.js';

type Row = IndexHit['record'];

/** How many of the best lexical hits of each kind have their files read ahead (the excerpts and the expansion's). */
export const AHEAD_UNITS = 8;
export const AHEAD_WINDOWS = 5;

/**
 * `work` run after the requests already sent have gone out (on the event loop's next turn), as a promise that a caller
 * may await later: it is marked handled at once, so a failure is the caller's when it awaits it, not an unhandled one.
 */
export function later<T>(work: () => T): Promise<T> {
  const result = new Promise<T>((resolve, reject) =>
    setImmediate(() => {
      try {
        resolve(work());
      } catch (err) {
        reject(err);
      }
    }),
  );
  result.catch(() => undefined);
  return result;
}

/**
 * Reads and parses the files of `rows` (each once, in order), one file per turn of the event loop so that an answer
 * arriving meanwhile is handled between two files, until `done()`: from then on the search reads what it needs
 * itself, sharing the reads already started (`readUnits` is the search's own reader). A file that cannot be read is
 * left to the search, which meets it again.
 */
export function readAhead(readUnits: FileUnits, rows: Row[], done: () => boolean): void {
  const seen = new Set<string>();
  const queue = rows.filter((r) => !seen.has(r.path) && seen.add(r.path));
  const next = () => {
    const row = queue.shift();
    if (!row || done()) return;
    readUnits(row).then(
      () => setImmediate(next),
      () => setImmediate(next),
    );
  };
  setImmediate(next);
}
