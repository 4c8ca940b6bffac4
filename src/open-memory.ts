// The composition root: the only place that turns configuration into adapters and wires the services. Opening a
// root is the sequence of steps in openMemory, each in its own file under open/.
import { join } from 'node:path';

import type { MemConfig } from './config.js';
import type { Memory } from './services/facade.js';
import type { HookState, MemoryFiles, TextFiles, TurnLedger } from './services/ports.js';
import type { Project } from './adapters/git/project.js';
import type { CaptureWorker } from './adapters/agents/capture-worker.js';
import { catchUp } from './open/catch-up.js';
import { connect } from './open/connect.js';
import { buildDeps } from './open/deps.js';
import { setUpMergeDriver } from './open/merge-driver.js';
import { openModels } from './open/models.js';
import type { WiringOptions } from './open/options.js';
import { prepareRoot, stateLayoutOf } from './open/state.js';

export type { OpenOptions, WiringOptions } from './open/options.js';
export { stateLayoutOf } from './open/state.js';
export { pruneOrphans } from './open/collections.js';
export { setUpMergeDriver, settleUnmergedMemory } from './open/merge-driver.js';

/** Opens the memory root described by `config`: the library's entry point. */
export async function openMemory(config: MemConfig, options: WiringOptions = {}): Promise<Memory> {
  // Checked and made before anything else is created (a root deleted under a long-lived process stays deleted).
  const layout = await prepareRoot(config, options);
  // The merge driver beside the connection (git calls while the servers start): no time of its own.
  const [connection, driver] = await Promise.all([connect(config, options, layout), config.git ? setUpMergeDriver(config.root, options.onLog) : undefined]);
  const models = await openModels(config, options, layout, connection);
  const deps = await buildDeps(config, layout, connection, models);
  options.onDeps?.(deps);
  // Loaded here, not at the top: the light exports below (agents' hooks, server status) skip every use case.
  const { createMemory } = await import('./services/facade.js');
  const memory = createMemory(deps, async () => {
    await deps.access.settle();
    await models.index.close();
    await deps.cache.close?.();
    await models.second?.cache.close?.();
    await connection.release();
  });
  const at = { root: config.root, layout, rebuild: connection.rebuild, head: driver?.head, manifestExists: () => deps.manifest.exists() };
  await catchUp(memory, at, options.onLog);
  return memory;
}

/** Agents' configuration files and transcripts (`mem integrate`, `mem hook`). */
export async function openTextFiles(): Promise<TextFiles> {
  return new (await import('./adapters/agents/text-files.js')).FsTextFiles();
}

/** Starts the detached process that captures a hook's held input (`mem hook`'s hand-over). */
export async function startCaptureWorker(worker: CaptureWorker): Promise<void> {
  (await import('./adapters/agents/capture-worker.js')).startCaptureWorker(worker);
}

/** The agent hooks' cursors and log under a memory root's state folder (`.mem/hooks/`). */
export async function openHookState(config: MemConfig): Promise<HookState> {
  return new (await import('./adapters/state/hook-state.js')).FsHookState(stateLayoutOf(config).dir);
}

/** The turns a root captured or forgot, by identity (what capture checks before it stores a turn). */
export async function openTurnLedger(config: MemConfig): Promise<TurnLedger> {
  return new (await import('./adapters/state/turn-ledger.js')).FsTurnLedger(config.root, stateLayoutOf(config).dir);
}

/** A root's memory files alone, without the index or the model (what a hook reads at session start). */
export async function openMemoryFiles(root: string): Promise<MemoryFiles> {
  return new (await import('./adapters/files/fs-memory-files.js')).FsMemoryFiles(root);
}

/** The project a folder belongs to: all git worktrees of a repository resolve to its main working tree. */
export async function findProject(cwd: string): Promise<Project> {
  return (await import('./adapters/git/project.js')).findProject(cwd);
}

/** The project memory root of a folder: `<the repository's main working tree>/memories`. */
export async function projectMemoryRoot(cwd: string): Promise<{ root: string; project: Project }> {
  const project = await findProject(cwd);
  return { root: join(project.dir, 'memories'), project };
}
