// The roots the shared servers serve: one small JSON file each under the servers folder, written when a root is
// opened, marked released by `mem server stop`. The servers stop once no root in use remains (owner-only.ts), and
// `mem server status` lists them, including the collections of roots deleted or moved away on disk (orphans), which
// `mem server prune`, a fresh start of the servers and the search daemon drop.
import { readFileSync } from 'node:fs';
import { chmod, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import writeFileAtomic from 'write-file-atomic';

import { stateLayoutAt, type ServerLayout } from '../../memory/layout.js';
import { readJsonOrNull } from '../state/read-json.js';
import { isAlive } from '../state/process-alive.js';

export interface RootEntry {
  /** The root's name in the registry (and its collection in the shared Milvus Lite when the index is embedded). */
  collection: string;
  root: string;
  /** The root's state folder (`<root>/.mem`, or under the runtime home for a read-only root). */
  stateDir: string;
  usedAt: string;
  /** Set by `mem server stop`: the root no longer keeps the shared servers up (cleared by its next command). */
  released?: boolean;
}

export type RootState = 'active' | 'released' | 'orphan';

const entryFile = (servers: ServerLayout, collection: string) => join(servers.roots, `${collection}.json`);

async function ownerOnly(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
}

export async function readRootEntry(servers: ServerLayout, collection: string): Promise<RootEntry | null> {
  return (await readJsonOrNull(entryFile(servers, collection))) as RootEntry | null;
}

/** Records that the root is in use (before its servers are started: a server with no root in use stops). */
export async function registerRoot(servers: ServerLayout, entry: Omit<RootEntry, 'usedAt' | 'released'>): Promise<void> {
  await ownerOnly(servers.servers);
  await mkdir(servers.roots, { recursive: true, mode: 0o700 });
  await writeFileAtomic(entryFile(servers, entry.collection), JSON.stringify({ ...entry, usedAt: new Date().toISOString() }), { mode: 0o600 });
}

/** `mem server stop`: the root no longer keeps the servers up; false if it was not registered. */
export async function releaseRoot(servers: ServerLayout, collection: string): Promise<boolean> {
  const entry = await readRootEntry(servers, collection);
  if (!entry) return false;
  await writeFileAtomic(entryFile(servers, collection), JSON.stringify({ ...entry, released: true }), { mode: 0o600 });
  return true;
}

/** Forgets a root (its collection dropped or never created). */
export async function removeRoot(servers: ServerLayout, collection: string): Promise<void> {
  await rm(entryFile(servers, collection), { force: true });
}

/**
 * Active: on disk and not released; released: on disk, stopped by `mem server stop`; orphan: its state folder is gone
 * (the root deleted or moved away) or names another collection now (its `.mem/` was deleted and a new id made).
 */
export function rootState(entry: RootEntry): RootState {
  let id = '';
  try {
    id = readFileSync(stateLayoutAt(entry.stateDir).rootId, 'utf8').trim();
  } catch {
    return 'orphan';
  }
  if (`memdir_${id}` !== entry.collection) return 'orphan';
  return entry.released ? 'released' : 'active';
}

export async function listRoots(servers: ServerLayout): Promise<(RootEntry & { state: RootState })[]> {
  const names = (await readdir(servers.roots).catch(() => [] as string[])).filter((n) => n.endsWith('.json')).sort();
  const entries = (await Promise.all(names.map((n) => readJsonOrNull(join(servers.roots, n))))) as (RootEntry | null)[];
  return entries.filter((e): e is RootEntry => e !== null).map((e) => ({ ...e, state: rootState(e) }));
}

/**
 * The collections an earlier identity of this root path left (its `.mem/` deleted: `git clean -fdx`, a checkout over
 * it): no command reaches them again, yet they hold the memories' text, which a forget must not leave behind. Dropped
 * (by `drop`) and unregistered when the root's new id is made; returns their names.
 */
export async function dropReplacedCollections(
  servers: ServerLayout,
  root: string,
  current: string,
  drop: (collection: string) => Promise<void>,
): Promise<string[]> {
  const replaced = (await listRoots(servers)).filter((e) => e.root === root && e.collection !== current && e.state === 'orphan');
  for (const e of replaced) {
    await drop(e.collection);
    await removeRoot(servers, e.collection);
  }
  return replaced.map((e) => e.collection);
}

/**
 * The collections of the roots gone from disk (orphans), dropped (by `drop`) and unregistered; returns them. Each is
 * looked at again just before its drop: a root opened at its new place meanwhile (moved) is registered there again.
 */
export async function dropOrphans(servers: ServerLayout, drop: (collection: string) => Promise<void>): Promise<{ root: string; collection: string }[]> {
  const dropped: { root: string; collection: string }[] = [];
  for (const { collection } of (await listRoots(servers)).filter((e) => e.state === 'orphan')) {
    const entry = await readRootEntry(servers, collection);
    if (!entry || rootState(entry) !== 'orphan') continue;
    await drop(collection);
    await removeRoot(servers, collection);
    dropped.push({ root: entry.root, collection });
  }
  return dropped;
}

/**
 * Marks this process as using the servers until the returned function is called (or the process dies): a server
 * does not stop for idleness under a long session (`mem mcp`, `mem watch`, the search daemon).
 */
export async function takeLease(servers: ServerLayout): Promise<() => Promise<void>> {
  await ownerOnly(servers.servers);
  await mkdir(servers.leases, { recursive: true, mode: 0o700 });
  // Leases of processes that died without releasing them hold nothing: clear them while here.
  for (const name of await readdir(servers.leases).catch(() => [] as string[])) {
    const pid = Number(name.split('-')[0]);
    if (!Number.isInteger(pid) || !isAlive(pid)) await rm(join(servers.leases, name), { force: true });
  }
  const file = join(servers.leases, `${process.pid}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`);
  await writeFile(file, '', { mode: 0o600 });
  return () => rm(file, { force: true });
}
