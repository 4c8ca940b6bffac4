// `mem forget`: remove memories by id, by user, or by query (previewed first), everywhere, in one commit.
import { UsageError } from '../../errors.js';
import type { ForgetResult } from '../../services/forget.js';
import { canAsk, confirmByTyping } from '../confirm.js';
import { configFrom, withMemory } from '../context.js';
import type { GlobalOptions, Io } from '../io.js';
import { parsePositiveInt } from './parse-options.js';

export interface ForgetOptions extends GlobalOptions {
  user?: string;
  query?: string;
  k: string;
  yes?: boolean;
  all?: boolean;
  purgeHistory?: boolean;
  rewriteProjectHistory?: boolean;
  reason?: string;
}

function formatForget(result: ForgetResult): string {
  if (result.preview) {
    if (result.preview.length === 0) return 'no memory matches; nothing would be forgotten';
    const lines = result.preview.map((p) => `would remove ${p.id} (${p.path}): ${p.content.replace(/\s+/g, ' ').slice(0, 100)}`);
    return [...lines, 'run again with --yes to forget these'].join('\n');
  }
  const lines = result.removed.map((r) => `removed ${r.id} (${r.path})`);
  for (const g of result.regenerated) {
    lines.push(
      g.to
        ? `regenerated summary ${g.from} as ${g.to} without the forgotten memories`
        : `dropped summary ${g.from}${g.restored.length ? `; restored ${g.restored.join(', ')}` : ''}`,
    );
  }
  for (const r of result.restored ?? []) lines.push(`active again: ${r.id} (${r.path}), which a forgotten memory had replaced`);
  for (const id of result.missing) lines.push(`not found: ${id}`);
  if (result.purged) lines.push('git history rewritten: the removed files are gone from every commit');
  const v = result.verified;
  if (v) {
    lines.push(
      `verified: ${v.indexRows} index rows left; index storage ${v.index}; ${v.stateFiles} files under .mem/ hold none of the text` +
        (v.gitObjects !== undefined ? `; ${v.gitObjects} git objects hold none of it` : ''),
    );
  }
  return lines.length ? lines.join('\n') : 'nothing to forget';
}

/** Forgetting every memory of a user is said with --all, then confirmed: typed on a terminal, or --yes in a script. */
async function confirmAll(opts: ForgetOptions): Promise<void> {
  if (!opts.all || opts.yes) return;
  const root = configFrom(opts).root;
  if (!canAsk()) {
    throw new UsageError(`--all forgets every memory of ${opts.user} in ${root} for good: add --yes to confirm (no terminal to ask on); nothing was forgotten`);
  }
  if (!(await confirmByTyping(`This forgets every memory of ${opts.user} in ${root}, for good.`, opts.user!))) {
    throw new UsageError('not confirmed: nothing was forgotten');
  }
}

export async function forgetCommand(ids: string[], opts: ForgetOptions, io: Io): Promise<void> {
  if (opts.all && !opts.user) throw new UsageError('--all needs --user <u>: whose memories to forget');
  if (opts.all && (ids.length > 0 || opts.query !== undefined)) throw new UsageError('--all forgets every memory of the user: give it without ids or --query');
  if (ids.length === 0 && opts.query === undefined && !opts.all) {
    throw new UsageError(
      opts.user
        ? `no memory ids given: to forget every memory of ${opts.user}, add --all (nothing was forgotten)`
        : 'give memory ids, --query <text> --user <u>, or --all --user <u> to forget everything about a user',
    );
  }
  if (opts.purgeHistory && !opts.yes) {
    throw new UsageError(
      '--purge-history rewrites the history of every branch of the git repository holding the memories ' +
        '(clones and forks keep the old commits; collaborators must re-clone). Add --yes to confirm.',
    );
  }
  await confirmAll(opts);
  const result = await withMemory(opts, io, (memory) =>
    memory.forget({
      ids,
      ...(opts.user ? { user: opts.user } : {}),
      ...(opts.all ? { all: true } : {}),
      ...(opts.query !== undefined ? { query: opts.query, k: parsePositiveInt(opts.k, '-k', 100), apply: Boolean(opts.yes) } : {}),
      ...(opts.purgeHistory ? { purgeHistory: true } : {}),
      ...(opts.rewriteProjectHistory ? { rewriteProjectHistory: true } : {}),
      ...(opts.reason !== undefined ? { reason: opts.reason } : {}),
    }),
  );
  // Said once it happened: a refusal (a project repository, uncommitted changes) rewrites nothing.
  if (result.purged) io.note('mem: git history of every branch rewritten; other clones and forks keep the old commits');
  io.result(result, () => formatForget(result));
}
