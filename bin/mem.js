#!/usr/bin/env node
// The `mem` executable: a shim that runs the compiled CLI.
// `mem --version` answers from package.json alone: a version check must not pay for loading the CLI.
// A plain `mem search` is first offered to the daemon without loading the whole CLI (dist/cli/fast-search.js), and
// Claude Code's prompt hook, which it waits for before every prompt, runs without it too (dist/cli/fast-prompt-hook.js);
// null means the full CLI runs the command, whatever it is.
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
  const code = fast ?? (await (await import('../dist/cli/main.js')).main(process.argv));
  // Exit once stdout is flushed, so a lingering network handle can never keep the command alive.
  process.stdout.write('', () => process.exit(code));
}
