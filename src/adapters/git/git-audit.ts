// AuditLog on git: each write is one commit of exactly the memory files it touched.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { basename, join, relative, resolve, sep } from 'node:path';

import type { SimpleGit } from 'simple-git';

import { inheritedEnvironment } from '../../config.js';
import { MemError, RootGoneError, errorMessage } from '../../errors.js';
import { SKIPPED_DIRS, STATE_DIR, isMemoryFileName } from '../../memory/layout.js';
import type { AuditEntry, AuditLog, PurgeScope } from '../../services/ports.js';
import { recordPurgedRemotes, remoteTrackingTips } from './memory-repository.js';
import { printedPath } from './project.js';
import { rootGone } from '../state/state-dir.js';

/** simple-git (~100 ms of loading) is loaded by the first git call: a command that commits nothing makes none. */
const simpleGit = async () => (await import('simple-git')).simpleGit;

export class GitAudit implements AuditLog {
  private git: SimpleGit | null = null;

  constructor(
    private readonly root: string,
    readonly enabled: boolean,
  ) {}

  /** Finds the work tree holding the root, or makes the root one; the root itself is made only by its opening. */
  private async repo(): Promise<SimpleGit> {
    if (this.git) return this.git;
    // A root deleted under a long-lived process stays deleted: nothing here makes it again.
    if (!existsSync(this.root)) throw rootGone(this.root);
    const git = (await simpleGit())({ baseDir: this.root });
    const inside = await git
      .raw(['rev-parse', '--is-inside-work-tree'])
      .then((o) => o.trim() === 'true')
      .catch(() => false);
    if (!inside) await git.init();
    // Commit even where no identity is configured (CI, fresh machines), without touching global config.
    const email = await git
      .raw(['config', 'user.email'])
      .then((o) => o.trim())
      .catch(() => '');
    this.git = email ? git : (await simpleGit())({ baseDir: this.root, config: ['user.name=memdir', 'user.email=memdir@localhost'] });
    return this.git;
  }

  async commit(paths: string[], message: string): Promise<void> {
    if (!this.enabled || paths.length === 0) return;
    const git = await this.repo().catch((err: unknown) => {
      if (err instanceof RootGoneError) throw err;
      throw new MemError(`the memory files were written but the git commit failed: ${errorMessage(err)}`, { cause: err });
    });
    await this.refuseDuringConflict(git, paths);
    try {
      // ls-files prints paths relative to the working folder, which is the root: the same form as ours.
      const tracked = new Set((await git.raw(['ls-files', '-z', '--', ...paths.map((p) => join(this.root, p))])).split('\0').filter(Boolean));
      // A file git ignores and does not track is the person's to keep out of git (a private folder): never
      // force-added, left out of the commit; it is still written and indexed, and `mem doctor` names it.
      const ignored = new Set(
        (await git.raw(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--', ...paths.map((p) => join(this.root, p))])).split('\0'),
      );
      const present = paths.filter((p) => existsSync(join(this.root, p)) && !ignored.has(p));
      const removed = paths.filter((p) => !existsSync(join(this.root, p)));
      if (present.length > 0) await git.raw(['add', '--', ...present.map((p) => join(this.root, p))]);
      if (removed.length > 0) await git.raw(['rm', '--cached', '--quiet', '--ignore-unmatch', '--', ...removed.map((p) => join(this.root, p))]);
      // Only paths git knows (present, or tracked before) can be named to `commit --only`.
      const known = [...present, ...removed.filter((p) => tracked.has(p))].map((p) => join(this.root, p));
      if (known.length === 0) return;
      const staged = await git.raw(['diff', '--cached', '--name-only', '-z', '--', ...known]);
      if (!staged.replace(/\0/g, '').trim()) return;
      // The repository's hooks run (a secret scanner in pre-commit, for one): a hook that refuses fails the write.
      await git.raw(['commit', '--quiet', '-m', message, '--', ...known]);
    } catch (err) {
      throw new MemError(`the memory files were written but the git commit failed: ${errorMessage(err)}`, { cause: err });
    }
  }

  /**
   * A person's merge (or rebase, stash pop, cherry-pick, revert) is theirs to finish: `git add` of a conflicted file would mark
   * it resolved with its markers in, and a commit of some paths fails mid-merge anyway, after staging them.
   */
  private async refuseDuringConflict(git: SimpleGit, paths: string[]): Promise<void> {
    const unmerged = (await git.raw(['ls-files', '-u', '-z', '--', ...paths.map((p) => join(this.root, p))]).catch(() => '')).split('\0').filter(Boolean);
    // The files and folders git keeps while one is under way (paths relative to the root, or absolute in a linked
    // work tree); a commit made during a rebase would land between the rebased commits.
    const ops: Record<string, string> = {
      MERGE_HEAD: 'merge',
      CHERRY_PICK_HEAD: 'cherry-pick',
      REVERT_HEAD: 'revert',
      'rebase-merge': 'rebase',
      'rebase-apply': 'rebase',
    };
    const refs = Object.keys(ops);
    const files = (await git.raw(['rev-parse', ...refs.flatMap((ref) => ['--git-path', ref])]).catch(() => '')).split('\n').filter(Boolean);
    const pending = refs.map((ref, i) => (files[i] && existsSync(resolve(this.root, files[i])) ? ref : null));
    const op = pending.find(Boolean);
    if (unmerged.length === 0 && !op) return;
    const what = op ? `a git ${ops[op]} is in progress` : 'git has unresolved conflicts';
    throw new MemError(
      `nothing committed: ${what} in the repository of ${this.root}${unmerged.length > 0 ? ` (${paths.filter((p) => unmerged.some((u) => u.endsWith(p))).join(', ')} conflicted)` : ''}; memdir stages and commits nothing until it is finished (\`mem resolve\` settles memory files by memdir's rules; resolve the rest and git commit, or abort it); then run the command again (\`mem doctor --fix\` commits memory files left uncommitted)`,
    );
  }

  async history(path: string): Promise<AuditEntry[]> {
    if (!this.enabled || (!existsSync(join(this.root, '.git')) && !(await this.insideRepo()))) return [];
    const git = await this.repo();
    // Unit separator between fields, one commit per line: subjects cannot contain either.
    const out = await git.raw(['log', '--follow', '--format=%H%x1f%aI%x1f%s', '--', join(this.root, path)]).catch(() => '');
    return out
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [commit = '', date = '', subject = ''] = line.split('\x1f');
        return { commit, date, subject };
      });
  }

  async uncommitted(paths?: string[]): Promise<string[]> {
    if (!this.enabled || paths?.length === 0 || !(await this.insideRepo())) return [];
    const git = await this.repo();
    // Porcelain paths are relative to the top of the work tree; ours to the root, which may sit inside it.
    const prefix = printedPath(await git.raw(['rev-parse', '--show-prefix']));
    const targets = paths ? paths.map((p) => join(this.root, p)) : [this.root];
    const out = await git.raw(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--', ...targets]);
    const found = new Set<string>();
    for (const entry of out.split('\0')) {
      if (entry.length < 4) continue;
      const path = entry.slice(3);
      if (!path.startsWith(prefix)) continue;
      const rel = path.slice(prefix.length);
      if (isMemoryFileName(basename(rel)) && !rel.split('/').includes(STATE_DIR)) found.add(rel);
    }
    return [...found].sort();
  }

  async unmerged(): Promise<string[]> {
    if (!this.enabled || !(await this.insideRepo())) return [];
    // Paths relative to the working folder (the root); each stage of a path is one line.
    const out = await (await this.repo()).raw(['ls-files', '-u', '-z', '--', this.root]).catch(() => '');
    const paths = out
      .split('\0')
      .map((entry) => entry.split('\t')[1] ?? '')
      .filter((rel) => rel && isMemoryFileName(basename(rel)) && !rel.split('/').includes(STATE_DIR));
    return [...new Set(paths)].sort();
  }

  async ignored(): Promise<string[]> {
    if (!this.enabled || !(await this.insideRepo())) return [];
    const git = await this.repo();
    // Untracked and ignored only: a tracked file that a pattern matches is still committed as it changes.
    // `--directory` is left off, so a file in an ignored folder is listed itself; paths relative to the root (cwd).
    const out = await git.raw(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--', this.root]);
    const stateDir = `${STATE_DIR}/`;
    return out
      .split('\0')
      .filter((rel) => isMemoryFileName(basename(rel)) && !rel.startsWith(stateDir) && !rel.split('/').some((part) => SKIPPED_DIRS.has(part)))
      .sort();
  }

  async unstage(paths: string[]): Promise<void> {
    if (!this.enabled || paths.length === 0 || !(await this.insideRepo())) return;
    const git = await this.repo();
    const abs = paths.map((p) => join(this.root, p));
    const hasHead = await git.raw(['rev-parse', '--verify', '--quiet', 'HEAD']).then(
      () => true,
      () => false,
    );
    // Without a first commit there is nothing to go back to: the paths leave the index.
    if (hasHead) await git.raw(['reset', '--quiet', 'HEAD', '--', ...abs]);
    else await git.raw(['rm', '-r', '--cached', '--quiet', '--ignore-unmatch', '--', ...abs]);
  }

  private async insideRepo(): Promise<boolean> {
    try {
      return (await (await simpleGit())({ baseDir: this.root }).raw(['rev-parse', '--is-inside-work-tree'])).trim() === 'true';
    } catch {
      return false; // no such folder, or not a repository
    }
  }

  async author(): Promise<string> {
    if (!this.enabled) return '';
    // `git var` applies the same rules as a commit (config, environment); drop its trailing timestamp.
    const ident = await (await this.repo()).raw(['var', 'GIT_AUTHOR_IDENT']).catch(() => '');
    return ident.trim().replace(/\s+\d+\s+[+-]\d{4}$/, '');
  }

  async purgeScope(): Promise<PurgeScope | null> {
    if (!this.enabled) return null;
    const git = await this.repo();
    const top = printedPath(await git.raw(['rev-parse', '--show-toplevel']));
    const [realTop, realRoot] = await Promise.all([realpath(top), realpath(this.root)]);
    const branches = (await git.raw(['for-each-ref', '--format=%(refname:short)', 'refs/heads'])).split('\n').filter(Boolean);
    const uncommitted = (await git.raw(['status', '--porcelain', '--untracked-files=no', '--', top])).split('\n').filter(Boolean).length;
    return { repository: realTop, rootIsRepository: realTop === realRoot, branches, uncommitted };
  }

  async objectsContaining(needles: string[]): Promise<{ objects: number; hits: number }> {
    if (!this.enabled) return { objects: 0, hits: 0 };
    const top = printedPath(await (await this.repo()).raw(['rev-parse', '--show-toplevel']));
    // Every object in the store, loose or packed, reachable or not, decompressed: what a copy of .git/ would give away.
    const out = await new Promise<Buffer>((resolve, reject) => {
      execFile('git', ['cat-file', '--batch-all-objects', '--batch', '--unordered'], { cwd: top, encoding: 'buffer', maxBuffer: 1 << 30 }, (err, stdout) =>
        err ? reject(err) : resolve(stdout),
      );
    });
    const wanted = needles.filter(Boolean).map((n) => Buffer.from(n, 'utf8'));
    let objects = 0;
    let hits = 0;
    for (let at = 0; at < out.length;) {
      const eol = out.indexOf(0x0a, at);
      const size = Number(out.subarray(at, eol).toString('latin1').split(' ')[2]);
      const body = out.subarray(eol + 1, eol + 1 + size);
      objects += 1;
      if (wanted.some((n) => body.includes(n))) hits += 1;
      at = eol + 1 + size + 1;
    }
    return { objects, hits };
  }

  async purge(paths: string[]): Promise<void> {
    if (!this.enabled || paths.length === 0) return;
    const git = await this.repo();
    const top = printedPath(await git.raw(['rev-parse', '--show-toplevel']));
    const inRepo = paths.map((p) => relative(top, join(this.root, p)).split(sep).join('/'));
    // Memory paths and ids are validated (letters, digits, . _ - @ /), so quoting for the filter's shell is simple;
    // ids are slugs of the text, so commit messages naming them are redacted too.
    const shellQuote = (v: string) => `'${v.replace(/'/g, "'\\''")}'`;
    const ids = paths.map((p) => basename(p).replace(/\.md$/i, ''));
    const sedEscape = (v: string) => v.replace(/[.[\]*^$\\/]/g, (c) => `\\${c}`);
    const msgFilter = `sed ${ids.map((id) => `-e ${shellQuote(`s/${sedEscape(id)}/[forgotten]/g`)}`).join(' ')}`;
    const indexFilter = `git rm -r -q --cached --ignore-unmatch -- ${inRepo.map(shellQuote).join(' ')}`;
    try {
      // A minimal environment: simple-git refuses to pass editor/pager variables on, and filter-branch needs none.
      const inherited = inheritedEnvironment();
      const env = Object.fromEntries(['PATH', 'HOME', 'LANG', 'LC_ALL', 'TMPDIR', 'USER'].filter((k) => inherited[k]).map((k) => [k, inherited[k]!]));
      const tracking = await remoteTrackingTips(top);
      // filter-branch runs from the top of the work tree only (the root may be a project's subfolder).
      await (
        await simpleGit()
      )({ baseDir: top })
        .env({ ...env, FILTER_BRANCH_SQUELCH_WARNING: '1' })
        .raw(['filter-branch', '--force', '--index-filter', indexFilter, '--msg-filter', msgFilter, '--prune-empty', '--', '--all']);
      const backups = (await git.raw(['for-each-ref', '--format=%(refname)', 'refs/original/'])).split('\n').filter(Boolean);
      for (const ref of backups) await git.raw(['update-ref', '-d', ref]);
      // `mem sync` then replaces the remote's old history with this one (and only that history).
      await recordPurgedRemotes(top, tracking);
      await git.raw(['reflog', 'expire', '--expire=now', '--all']);
      await git.raw(['gc', '--prune=now', '--quiet']);
      // Commits that only touched the forgotten files are gone with their messages; this one records that
      // a purge happened, without naming what. It skips the hooks: it changes no file, and the history is
      // already rewritten, so a hook refusing an empty commit must not report a finished purge as failed.
      await git.raw(['commit', '--allow-empty', '--quiet', '--no-verify', '-m', `memdir: PURGE-HISTORY\n\naction: PURGE-HISTORY\ncount: ${paths.length}`]);
    } catch (err) {
      throw new MemError(
        `the memories were forgotten and committed, but rewriting git history failed (commit or stash other changes in ${top}, then run again): ${errorMessage(err)}`,
        { cause: err },
      );
    }
  }
}
