// The composition root's light doors: what the agents' hooks and status read (hook state, agents' files, the project
// of a folder) without the steps of opening a root, so a hook that needs only these loads none of them.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

import type { MemConfig } from '../config.js';
import type { HookState, MemoryFiles, TextFiles, TurnLedger } from '../services/ports.js';
import type { Project } from '../adapters/git/project.js';
import type { CaptureWorker } from '../adapters/agents/capture-worker.js';
import { mayHoldMemories } from '../memory/layout.js';
import { stateLayoutOf } from './state.js';

/** Agents' configuration files and transcripts (`mem integrate`, `mem hook`). */
export async function openTextFiles(): Promise<TextFiles> {
  return new (await import('../adapters/agents/text-files.js')).FsTextFiles();
}

/** Starts the detached process that captures a hook's held input (`mem hook`'s hand-over). */
export async function startCaptureWorker(worker: CaptureWorker): Promise<void> {
  (await import('../adapters/agents/capture-worker.js')).startCaptureWorker(worker);
}

/** The agent hooks' cursors and log under a memory root's state folder (`.mem/hooks/`). */
export async function openHookState(config: MemConfig): Promise<HookState> {
  return new (await import('../adapters/state/hook-state.js')).FsHookState(stateLayoutOf(config).dir);
}

/** The turns a root captured or forgot, by identity (what capture checks before it stores a turn). */
export async function openTurnLedger(config: MemConfig): Promise<TurnLedger> {
  return new (await import('../adapters/state/turn-ledger.js')).FsTurnLedger(config.root, stateLayoutOf(config).dir);
}

/** A root's memory files alone, without the index or the model (what a hook reads at session start). */
export async function openMemoryFiles(root: string): Promise<MemoryFiles> {
  return new (await import('../adapters/files/fs-memory-files.js')).FsMemoryFiles(root);
}

/** Loads what finding a project takes, for a caller with time to spare before it knows the folder (a hook reading its input). */
export async function prepareFindProject(): Promise<void> {
  await import('../adapters/git/project.js');
}

/** The project a folder belongs to: all git worktrees of a repository resolve to its main working tree. */
export async function findProject(cwd: string): Promise<Project> {
  return (await import('../adapters/git/project.js')).findProject(cwd);
}

/** The project memory root of a folder: `<the repository's main working tree>/memories`. */
export async function projectMemoryRoot(cwd: string): Promise<{ root: string; project: Project }> {
  const project = await findProject(cwd);
  return { root: join(project.dir, 'memories'), project };
}

/**
 * Whether a root may hold a memory (one read of its top folder): false for a root that is not there or holds only its
 * state and git's files, whose daemon would search nothing. A folder that cannot be read may: its daemon says why.
 */
export function rootMayHoldMemories(root: string): boolean {
  try {
    return mayHoldMemories(readdirSync(root, { withFileTypes: true }));
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ENOENT' && (err as NodeJS.ErrnoException).code !== 'ENOTDIR';
  }
}
