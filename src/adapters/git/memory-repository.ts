// MemoryRepository on git: the memory root's own repository and its remote, for `mem sync` (fetch, merge or
// rebase, push, and putting everything back when a step fails).
import { existsSync, statSync } from 'node:fs';
import { readFile, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';

import { MemError } from '../../errors.js';
import type { MemoryRepository, RepositoryPlace, SyncRecord, TreeChanges } from '../../services/ports.js';
import { FALLBACK_IDENTITY, gitRun, type GitOutcome } from './git-run.js';

// Files under .git/ (git keeps its own state there too): a sync under way, and the remote tips a purge rewrote.
const SYNC_RECORD = 'memdir-sync.json';
const PURGED_RECORD = 'memdir-purged.json';
/** The merge driver's note of the versions it kept beside merged files (paths from the top of the work tree). */
const DRIVER_KEPT_NOTE = 'memdir-kept';

/** A remote that does not answer in this time is reported as unreachable rather than waited for. */
const NETWORK_TIMEOUT_MS = 120_000;

const FORGET_ACTION = /^action: FORGET(-USER|-QUERY)?$/m;

export class GitMemoryRepository implements MemoryRepository {
  private identity: string[] | null = null;

  constructor(private readonly root: string) {}

  private run(args: string[], timeoutMs?: number): Promise<GitOutcome> {
    return gitRun(this.root, args, timeoutMs ? { timeoutMs } : {});
  }

  /** Runs a command that must succeed; its failure is a MemError saying what was being done. */
  private async must(args: string[], doing: string): Promise<string> {
    const out = await this.run(args);
    if (out.code !== 0) throw new MemError(`git could not ${doing}: ${(out.stderr || out.stdout).trim()}`);
    return out.stdout;
  }

  /** A command that commits, as the configured person or, where none is, as memdir. */
  private async committing(args: string[]): Promise<GitOutcome> {
    if (!this.identity) {
      const email = (await this.run(['config', 'user.email'])).stdout.trim();
      this.identity = email ? [] : FALLBACK_IDENTITY;
    }
    return this.run([...this.identity, ...args]);
  }

  private async gitPath(name: string): Promise<string> {
    return resolve(this.root, (await this.must(['rev-parse', '--git-path', name], 'find its folder')).trim());
  }

  async place(): Promise<RepositoryPlace> {
    if (!existsSync(this.root)) return { kind: 'none' };
    const top = await this.run(['rev-parse', '--show-toplevel']);
    if (top.code !== 0) return { kind: 'none' };
    const [realTop, realRoot] = await Promise.all([realpath(top.stdout.trim()), realpath(this.root)]);
    if (realTop !== realRoot) return { kind: 'project', repository: realTop };
    const branch = (await this.run(['symbolic-ref', '--quiet', '--short', 'HEAD'])).stdout.trim();
    if (!branch) throw new MemError(`the repository of ${this.root} is not on a branch (detached HEAD): check out a branch, then run mem sync again`);
    const configured = (await this.run(['config', `branch.${branch}.remote`])).stdout.trim();
    const remotes = (await this.run(['remote'])).stdout.split('\n').filter(Boolean);
    // The branch's upstream when set; else the only remote (or origin), under the same branch name.
    const remote = configured || (remotes.length === 1 ? remotes[0]! : remotes.includes('origin') ? 'origin' : null);
    const merge = (await this.run(['config', `branch.${branch}.merge`])).stdout.trim();
    const remoteBranch = configured && merge.startsWith('refs/heads/') ? merge.slice('refs/heads/'.length) : branch;
    const url = remote ? (await this.run(['remote', 'get-url', remote])).stdout.trim() || null : null;
    return { kind: 'own', branch, remote, remoteBranch, url };
  }

  /** Only a root that is the top of its repository syncs, so its record sits in `<root>/.git/`: found without running git. */
  private syncRecordPath(): string | null {
    const dir = join(this.root, '.git');
    return existsSync(dir) && statSync(dir).isDirectory() ? join(dir, SYNC_RECORD) : null;
  }

  async pendingSync(): Promise<SyncRecord | null> {
    const path = this.syncRecordPath();
    const text = path ? await readFile(path, 'utf8').catch(() => null) : null;
    return text ? (JSON.parse(text) as SyncRecord) : null;
  }

  async saveSync(record: SyncRecord): Promise<void> {
    const path = this.syncRecordPath();
    if (!path) throw new MemError(`${this.root} has no .git folder of its own: mem sync works on a root that is its own repository`);
    // Written whole then renamed: a kill leaves the old record or the new one, never half of one.
    await writeFile(`${path}.tmp`, JSON.stringify(record));
    await rename(`${path}.tmp`, path);
  }

  async endSync(): Promise<void> {
    const path = this.syncRecordPath();
    if (path) await rm(path, { force: true });
  }

  async head(): Promise<string | null> {
    const out = await this.run(['rev-parse', '--verify', '--quiet', 'HEAD']);
    return out.code === 0 ? out.stdout.trim() : null;
  }

  async snapshot(remote: string, branch: string): Promise<Omit<SyncRecord, 'phase' | 'started' | 'remote'>> {
    const head = await this.head();
    const trackingRef = `refs/remotes/${remote}/${branch}`;
    const tracking = await this.run(['rev-parse', '--verify', '--quiet', trackingRef]);
    // The staged state as a tree, so that files staged but not committed are staged again after a roll-back.
    const tree = await this.run(['write-tree']);
    const headTree = head ? (await this.run(['rev-parse', `${head}^{tree}`])).stdout.trim() : null;
    const indexTree = tree.code === 0 && tree.stdout.trim() !== headTree ? tree.stdout.trim() : null;
    return { head, indexTree, trackingRef, tracking: tracking.code === 0 ? tracking.stdout.trim() : null };
  }

  async remoteTip(remote: string, branch: string): Promise<string | null> {
    const out = await this.run(['ls-remote', '--heads', '--', remote, `refs/heads/${branch}`], NETWORK_TIMEOUT_MS);
    if (out.code !== 0) throw new MemError(`cannot reach the remote ${remote}: ${out.stderr.trim() || 'no answer'}`);
    return out.stdout.split(/\s/)[0] || null;
  }

  async fetch(remote: string, branch: string): Promise<void> {
    const out = await this.run(['fetch', '--quiet', '--no-tags', remote, `+refs/heads/${branch}:refs/remotes/${remote}/${branch}`], NETWORK_TIMEOUT_MS);
    if (out.code !== 0) throw new MemError(`cannot fetch from the remote ${remote}: ${out.stderr.trim()}`);
  }

  async commitAll(message: (files: string[]) => Promise<string>): Promise<{ commit: string; files: string[] } | null> {
    // Everything under the root that git does not ignore (the state folder ignores itself).
    await this.must(['add', '--all', '--', '.'], 'stage the changes');
    const files = (await this.must(['diff', '--cached', '--name-only', '-z', '--no-renames'], 'list the staged changes')).split('\0').filter(Boolean);
    if (files.length === 0) return null;
    const out = await this.committing(['commit', '--quiet', '--no-verify', '-m', await message(files.sort())]);
    if (out.code !== 0) throw new MemError(`git could not commit the uncommitted files: ${(out.stderr || out.stdout).trim()}`);
    return { commit: (await this.head())!, files };
  }

  async contains(ancestor: string, descendant: string): Promise<boolean> {
    return (await this.run(['merge-base', '--is-ancestor', ancestor, descendant])).code === 0;
  }

  async has(commit: string): Promise<boolean> {
    return (await this.run(['cat-file', '-e', `${commit}^{commit}`])).code === 0;
  }

  private async unmerged(): Promise<string[]> {
    const out = await this.run(['diff', '--name-only', '--diff-filter=U', '-z']);
    return [...new Set(out.stdout.split('\0').filter(Boolean))].sort();
  }

  /** Fails with git's own words when an operation stopped for another reason than conflicts (a hook, a local change). */
  private async stopped(out: GitOutcome, doing: string): Promise<string[]> {
    if (out.code === 0) return [];
    const unmerged = await this.unmerged();
    if (unmerged.length > 0) return unmerged;
    throw new MemError(`git could not ${doing}: ${(out.stderr || out.stdout).trim()}`);
  }

  async operationInProgress(): Promise<string | null> {
    const ops: [string, string][] = [
      ['MERGE_HEAD', 'merge'],
      ['rebase-merge', 'rebase'],
      ['rebase-apply', 'rebase'],
      ['CHERRY_PICK_HEAD', 'cherry-pick'],
      ['REVERT_HEAD', 'revert'],
    ];
    for (const [name, op] of ops) if (existsSync(await this.gitPath(name))) return op;
    return (await this.unmerged()).length > 0 ? 'merge (unresolved conflicts)' : null;
  }

  async merge(commit: string, message: string): Promise<string[]> {
    // Histories with no common commit: a second machine whose memory repository began on its own.
    const out = await this.committing(['merge', '--no-edit', '--allow-unrelated-histories', '-m', message, commit]);
    return this.stopped(out, 'merge');
  }

  async rebase(onto: string, upstream: string): Promise<string[]> {
    const out = await this.committing(['rebase', '--no-autostash', '--onto', onto, upstream]);
    return this.stopped(out, 'move this clone’s commits onto the rewritten history');
  }

  async continueOperation(message: string): Promise<string[]> {
    const rebasing = existsSync(await this.gitPath('rebase-merge')) || existsSync(await this.gitPath('rebase-apply'));
    const out = rebasing ? await this.committing(['rebase', '--continue']) : await this.committing(['commit', '--quiet', '--no-verify', '-m', message]);
    return this.stopped(out, rebasing ? 'go on with the rebase' : 'commit the merge');
  }

  async push(remote: string, branch: string, lease?: string | null): Promise<void> {
    const target = `refs/heads/${branch}`;
    const args = ['push', '--quiet', '--porcelain'];
    if (lease !== undefined) args.push(`--force-with-lease=${target}:${lease ?? ''}`);
    const out = await this.run([...args, remote, `HEAD:${target}`], NETWORK_TIMEOUT_MS);
    if (out.code !== 0) {
      const why = [
        out.stderr,
        out.stdout
          .split('\n')
          .filter((l) => l.startsWith('!'))
          .join('\n'),
      ]
        .join('\n')
        .trim();
      throw new MemError(`the remote ${remote} refused the push: ${why}`);
    }
    // What the remote now holds, as a fetch would have recorded it.
    await this.must(['update-ref', `refs/remotes/${remote}/${branch}`, 'HEAD'], 'record the pushed commit');
  }

  async restore(record: SyncRecord): Promise<void> {
    if (existsSync(await this.gitPath('rebase-merge')) || existsSync(await this.gitPath('rebase-apply'))) await this.run(['rebase', '--abort']);
    if (existsSync(await this.gitPath('MERGE_HEAD'))) await this.run(['merge', '--abort']);
    // The files as they were: the commit of what was uncommitted holds them, else HEAD before (no change was left).
    const files = record.committed ?? record.head;
    if (files) await this.must(['reset', '--quiet', '--hard', files], 'put the files back');
    if (record.head) await this.must(['reset', '--quiet', '--soft', record.head], 'put HEAD back');
    else await this.must(['update-ref', '-d', 'HEAD'], 'put HEAD back');
    // The staged state: as HEAD, or the tree that was staged.
    await this.must(['read-tree', record.indexTree ?? record.head ?? '--empty'], 'put the staged state back');
    // Versions the merge driver wrote beside a merged file are untracked once the merge is undone: they go with it.
    const note = await this.gitPath(DRIVER_KEPT_NOTE);
    for (const path of existsSync(note) ? (await readFile(note, 'utf8')).split('\n').filter(Boolean) : []) {
      if ((await this.run(['ls-files', '--error-unmatch', '--', path])).code !== 0) await rm(resolve(this.root, path), { force: true });
    }
    await rm(note, { force: true });
    if (record.tracking) await this.must(['update-ref', record.trackingRef, record.tracking], 'put the remote-tracking ref back');
    else await this.run(['update-ref', '-d', record.trackingRef]);
  }

  async changes(from: string | null, to: string): Promise<TreeChanges> {
    const base = from ?? (await this.must(['hash-object', '-t', 'tree', '/dev/null'], 'name the empty tree')).trim();
    const out = await this.must(['diff', '--name-status', '--no-renames', '-z', base, to], 'list the incoming changes');
    const fields = out.split('\0').filter(Boolean);
    const result: TreeChanges = { added: [], changed: [], deleted: [] };
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const [status, path] = [fields[i]!, fields[i + 1]!];
      (status === 'A' ? result.added : status === 'D' ? result.deleted : result.changed).push(path);
    }
    return result;
  }

  async commitsBetween(from: string | null, to: string): Promise<{ commits: number; forgets: number }> {
    const range = from ? [`${from}..${to}`] : [to];
    const out = await this.must(['log', '--no-merges', '--format=%B%x00', ...range], 'list the commits');
    const messages = out.split('\0').filter((m) => m.trim());
    return { commits: messages.length, forgets: messages.filter((m) => FORGET_ACTION.test(m)).length };
  }

  async oldHistoryBase(trackingRef: string, head: string, tip: string): Promise<string | null> {
    const purges = await this.run(['log', '--format=%H', '--extended-regexp', '--grep=^action: PURGE-HISTORY$', `${head}..${tip}`]);
    if (purges.code !== 0 || !purges.stdout.trim()) return null;
    const earlier = (await this.run(['reflog', 'show', '--format=%H', trackingRef])).stdout.split('\n').filter(Boolean);
    for (const commit of earlier) {
      if ((await this.has(commit)) && (await this.contains(commit, head)) && !(await this.contains(commit, tip))) return commit;
    }
    return null;
  }

  async prune(remote: string): Promise<void> {
    // ORIG_HEAD and FETCH_HEAD may still name a commit of the old history.
    for (const ref of ['ORIG_HEAD', 'FETCH_HEAD']) await rm(await this.gitPath(ref), { force: true });
    await this.must(['reflog', 'expire', '--expire=now', '--expire-unreachable=now', '--all'], 'expire the reflogs');
    await this.must(['gc', '--quiet', '--prune=now'], 'prune the old objects');
    // A remote that is a folder on this machine is pruned too: a hosted one keeps unreachable objects until its own gc.
    const url = (await this.run(['remote', 'get-url', remote])).stdout.trim();
    const folder = url.startsWith('file://') ? url.slice('file://'.length) : isAbsolute(url) || url.startsWith('.') ? resolve(this.root, url) : null;
    if (folder && existsSync(folder)) {
      await gitRun(folder, ['reflog', 'expire', '--expire=now', '--expire-unreachable=now', '--all']);
      const out = await gitRun(folder, ['gc', '--quiet', '--prune=now']);
      if (out.code !== 0) throw new MemError(`the remote ${remote} (${folder}) could not be pruned of the old history: ${out.stderr.trim()}`);
    }
  }

  async purgedFrom(trackingRef: string): Promise<string | null> {
    const text = await readFile(await this.gitPath(PURGED_RECORD), 'utf8').catch(() => null);
    return text ? ((JSON.parse(text) as Record<string, string>)[trackingRef] ?? null) : null;
  }

  async clearPurged(trackingRef: string): Promise<void> {
    const path = await this.gitPath(PURGED_RECORD);
    const text = await readFile(path, 'utf8').catch(() => null);
    if (!text) return;
    const { [trackingRef]: _done, ...rest } = JSON.parse(text) as Record<string, string>;
    if (Object.keys(rest).length === 0) await rm(path, { force: true });
    else await writeFile(path, JSON.stringify(rest));
  }
}

/** The remote-tracking refs and their commits, read before a purge rewrites them. */
export async function remoteTrackingTips(cwd: string): Promise<Map<string, string>> {
  const out = await gitRun(cwd, ['for-each-ref', '--format=%(refname) %(objectname)', 'refs/remotes']);
  return new Map(
    out.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' ') as [string, string]),
  );
}

/**
 * After a purge rewrote the remote-tracking refs too, records what each was before: the remote still holds that
 * history, and `mem sync` replaces it there only while the remote is still at that commit (nobody pushed since).
 */
export async function recordPurgedRemotes(cwd: string, before: Map<string, string>): Promise<void> {
  const after = await remoteTrackingTips(cwd);
  const path = resolve(cwd, (await gitRun(cwd, ['rev-parse', '--git-path', PURGED_RECORD])).stdout.trim());
  const earlier = JSON.parse((await readFile(path, 'utf8').catch(() => null)) ?? '{}') as Record<string, string>;
  const rewritten = Object.fromEntries([...before].filter(([ref, sha]) => after.get(ref) !== sha));
  // A second purge before a sync: the remote still holds the first one's old commit.
  const merged = { ...rewritten, ...earlier };
  if (Object.keys(merged).length > 0) await writeFile(path, JSON.stringify(merged));
}
