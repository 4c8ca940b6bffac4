#!/usr/bin/env node
// The `mem` executable: a shim that runs the compiled CLI.
// `mem --version` answers from package.json alone: a version check must not pay for loading the CLI.
// A plain `mem search` is first offered to the daemon without loading the whole CLI (dist/cli/fast-search.js), and
// Claude Code's prompt hook, which it waits for before every prompt, runs without it too (dist/cli/fast-prompt-hook.js);
// null means the full CLI runs the command, whatever it is.
// Started by the bin/mem launcher without the host's extra CA bundle (Node reads it at every start, so only a new
// process can have it), this process puts it back first, so that every child (the daemon, servers, git) gets the
// original environment, and runs the full CLI, which may reach a remote endpoint signed by it, in a child that has it.
const movedCa = process.env.MEMDIR_EXTRA_CA_CERTS;
delete process.env.MEMDIR_EXTRA_CA_CERTS;
const withoutCa = Boolean(movedCa) && !process.env.NODE_EXTRA_CA_CERTS;
if (withoutCa) process.env.NODE_EXTRA_CA_CERTS = movedCa;
const args = process.argv.slice(2);
const version = args.length > 0 && args.every((a) => a === '--version' || a === '-V' || a === '--json') && args.some((a) => a !== '--json');
if (version) {
  const { readFileSync } = await import('node:fs');
  const { version: v } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(args.includes('--json') ? `${JSON.stringify({ version: v })}\n` : `${v}\n`);
} else {
  const fast = process.argv.includes('search')
    ? await (await import('../dist/cli/fast-search.js')).fastSearch(process.argv)
    : args[0] === 'hook' && args[2] === 'prompt'
      ? await (await import('../dist/cli/fast-prompt-hook.js')).fastPromptHook(process.argv)
      : null;
  // null means nothing was done (nothing read, printed or started), so the command can run again from the start.
  const code =
    fast ??
    (withoutCa ? await (await import('../dist/cli/rerun-with-ca.js')).rerunWithCa(args) : await (await import('../dist/cli/main.js')).main(process.argv));
  // Exit once stdout is flushed, so a lingering network handle can never keep the command alive.
  process.stdout.write('', () => process.exit(code));
}
