// Names the memory files a person changed and did not commit that a memdir commit takes along, for its message.
import type { AuditLog } from '../ports.js';

/** What a commit message says of each such file (one `includes_uncommitted:` line). */
export type HandEditsNote = (committed: string[]) => string | undefined;

/**
 * Read before a command rewrites files: afterwards every file it wrote differs from the last commit. `git commit --
 * path` takes a file whole, so a person's unrelated edit of a file memdir rewrites (a back link, a status) goes into
 * memdir's commit; the message says so, so git does not silently attribute the person's words to memdir. With
 * `paths`, one `git status` of those paths (an add: its one target); without, one of the whole root (consolidate,
 * gc and forget, which sync the whole root anyway and learn which files they rewrite only while they write).
 */
export async function handEditsBefore(audit: AuditLog, paths?: string[]): Promise<HandEditsNote> {
  const edited = new Set(await audit.uncommitted(paths));
  return (committed) => {
    const taken = [...new Set(committed)].filter((p) => edited.has(p)).sort();
    return taken.length > 0 ? `${taken.join(', ')} (the person's changes, not committed before)` : undefined;
  };
}
