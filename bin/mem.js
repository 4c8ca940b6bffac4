#!/usr/bin/env node
// The `mem` executable: a shim that runs the compiled CLI.
// A plain `mem search` is first offered to the daemon without loading the whole CLI (dist/cli/fast-search.js);
// null means the full CLI runs the command, whatever it is.
const fast = process.argv.includes('search') ? await (await import('../dist/cli/fast-search.js')).fastSearch(process.argv) : null;
const code = fast ?? (await (await import('../dist/cli/main.js')).main(process.argv));
// Exit once stdout is flushed, so a lingering network handle can never keep the command alive.
process.stdout.write('', () => process.exit(code));
