// Runs the full `mem` CLI (commander and every command's declaration) on this process's arguments, as bin/mem.js does
// but without its fast paths: the reference a fast path's output and exit code are compared with. Needs a build.
const { main } = await import('../../dist/cli/main.js');
const code = await main(process.argv);
process.stdout.write('', () => process.exit(code));
