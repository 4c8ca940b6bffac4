// The first step of opening a root: where its state lives, and the root and its state folder made ready (or the
// clear error for a root that must exist and is gone) before anything else is created.
import { existsSync } from 'node:fs';

import type { MemConfig } from '../config.js';
import { RootGoneError } from '../errors.js';
import { stateLayoutAt, type StateLayout } from '../memory/layout.js';
import { ensurePrivateDir, ensureStateDir, stateDirOf, tightenExistingDir } from '../adapters/state/state-dir.js';
import type { OpenOptions } from './options.js';

/** Where a root's state lives: its `.mem/`, or under the runtime home for a root that cannot be written. */
export function stateLayoutOf(config: MemConfig): StateLayout {
  return stateLayoutAt(stateDirOf(config.root, config.runtimeHome));
}

/** Checks the root, makes it and its state folder when allowed, and returns the state layout. */
export async function prepareRoot(config: MemConfig, options: OpenOptions): Promise<StateLayout> {
  if (options.existingRoot && !existsSync(config.root)) throw new RootGoneError(`the memory root ${config.root} is gone (deleted or moved away)`);
  // Personal memory is private as a whole (project memory keeps the repository's modes; its `.mem/` is private).
  if (config.ownerOnly) await (options.existingRoot ? tightenExistingDir(config.root) : ensurePrivateDir(config.root));
  const layout = stateLayoutOf(config);
  // A new root is made at its opening, and only there: a root deleted under a long-lived process stays deleted.
  await ensureStateDir(layout.dir, { createRoot: !options.existingRoot });
  return layout;
}
