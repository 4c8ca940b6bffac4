// The end-to-end set-up in one place: a temporary memory root for a test file, and afterwards its local
// servers and search daemon stopped (`mem server stop`) and the root removed, with any other folders given.
import { rm } from 'node:fs/promises';

import { runMem } from './harness.js';
import { tempRoot } from './temp-root.js';

/** A temporary memory root holding these files. */
export function e2eRoot(files: Record<string, string | Uint8Array> = {}, prefix = 'memdir-e2e-'): Promise<string> {
  return tempRoot(files, prefix);
}

/** Stops the root's servers and daemon, then removes the root and the other folders (each may be unset if set-up failed). */
export async function disposeE2eRoot(root: string | undefined, ...alsoRemove: (string | undefined)[]): Promise<void> {
  if (root) await runMem(['server', 'stop'], { root });
  for (const dir of [root, ...alsoRemove]) if (dir) await rm(dir, { recursive: true, force: true });
}
