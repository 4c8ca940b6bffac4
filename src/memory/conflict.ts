// Finds the conflict markers a git merge (or stash pop, rebase, cherry-pick) leaves in a file it could not merge.

const FENCE = /^\s{0,3}(```|~~~)/;

/**
 * The line (1-based) of the first `<<<<<<<` that opens a complete conflict block (`<<<<<<<`, then `=======`,
 * then `>>>>>>>`, each at the start of its own line), or undefined. Lines inside a fenced code block are not read,
 * so a memory that shows such a block as an example (how to resolve a conflict) is not taken for one.
 */
export function conflictMarkerLine(text: string): number | undefined {
  const lines = text.split(/\r?\n/);
  let fence: string | undefined;
  let open: number | undefined;
  let divided = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const f = FENCE.exec(line);
    if (f) {
      if (fence === undefined) fence = f[1];
      else if (f[1] === fence) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    if (/^<{7}(?:\s|$)/.test(line)) {
      open = i + 1;
      divided = false;
    } else if (open !== undefined && /^={7}\s*$/.test(line)) divided = true;
    else if (open !== undefined && divided && /^>{7}(?:\s|$)/.test(line)) return open;
  }
  return undefined;
}
