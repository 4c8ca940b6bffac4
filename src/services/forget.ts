// Use case: forget memories everywhere: the files, their index rows and their cached vectors; one commit.
import { IndexUnavailableError, NotFoundError, UsageError } from '../errors.js';
import { assertMemoryId, assertUserId } from '../memory/ids.js';
import { commitMessage, type MemoryDeps } from './deps.js';
import { accessKey, type ManifestEntry } from './ports.js';
import { syncLocked } from './sync.js';

export interface ForgetInput {
  ids?: string[];
  /** With ids: only that user's memories; alone: everything about that user. */
  user?: string;
}

export interface ForgetResult {
  removed: { id: string; path: string }[];
  /** Requested ids that matched no memory. */
  missing: string[];
}

function selectTargets(manifest: Map<string, ManifestEntry>, input: ForgetInput) {
  const ids = new Set(input.ids ?? []);
  return [...manifest].filter(([, e]) => {
    if (input.user !== undefined && e.user !== input.user) return false;
    return ids.size === 0 || ids.has(e.memoryId);
  });
}

export async function forgetMemories(deps: MemoryDeps, input: ForgetInput): Promise<ForgetResult> {
  const ids = (input.ids ?? []).map(assertMemoryId);
  if (input.user !== undefined) assertUserId(input.user);
  if (ids.length === 0 && input.user === undefined) throw new UsageError('forget needs memory ids or --user');
  return deps.lock.run(async () => {
    // Sync first so hand edits since the last run are known (a memory's id may live in any file).
    await syncLocked(deps);
    const manifest = (await deps.manifest.load()) ?? new Map<string, ManifestEntry>();
    const targets = selectTargets(manifest, { ...input, ids });
    const found = new Set(targets.map(([, e]) => e.memoryId));
    const missing = ids.filter((id) => !found.has(id));
    if (targets.length === 0) {
      if (ids.length > 0) throw new NotFoundError(`no memory with id ${missing.join(', ')}${input.user ? ` for user ${input.user}` : ''}`);
      return { removed: [], missing };
    }
    const paths = targets.map(([p]) => p);
    for (const path of paths) await deps.files.remove(path);
    await deps.index.delete({ users: 'all', paths });
    // Forgetting a user also removes any row of theirs the manifest did not know about.
    if (ids.length === 0 && input.user !== undefined) await deps.index.delete({ users: [input.user] });
    await syncLocked(deps, { only: paths });

    const after = (await deps.manifest.load()) ?? new Map<string, ManifestEntry>();
    const stillUsed = new Set([...after.values()].flatMap((e) => e.chunks.map((c) => c.textHash)));
    const orphanVectors = targets.flatMap(([, e]) => e.chunks.map((c) => c.textHash)).filter((h) => !stillUsed.has(h));
    await deps.cache.removeMany(orphanVectors);
    await deps.access.remove(targets.map(([, e]) => accessKey(e.user, e.memoryId)));

    // Verify by reading back: a forget that left rows behind must not report success.
    const left = await deps.index.count({ users: 'all', paths });
    if (left > 0) throw new IndexUnavailableError(`forget left ${left} index rows behind for ${paths.join(', ')}; run \`mem reindex\``);

    const removed = targets.map(([path, e]) => ({ id: e.memoryId, path }));
    const action = ids.length === 0 ? 'FORGET-USER' : 'FORGET';
    await deps.audit.commit(
      paths,
      commitMessage(action, { id: ids.length === 1 ? ids[0] : undefined, user: input.user ?? targets[0]![1].user, count: String(removed.length) },
        removed.map((r) => `removed: ${r.id} (${r.path})`).join('\n')),
    );
    return { removed, missing };
  });
}
