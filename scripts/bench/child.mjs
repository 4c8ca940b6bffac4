// Child processes of the bench scripts: a node process timed by its wall time, and the code with which one asks a
// root's search daemon (the daemon client is not part of the package's API, so a child imports the build's own).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

/** Runs a node process in `cwd` with `env`: its wall time in ms (fails on a non-zero exit). */
export async function timedNode(argv, { cwd, env }) {
  return (await nodeOutput(argv, { cwd, env })).ms;
}

/** Runs a node process in `cwd` with `env`: its wall time in ms and what it printed (fails on a non-zero exit). */
export function nodeOutput(argv, { cwd, env }) {
  return new Promise((ok, fail) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', fail);
    child.on('close', (code) =>
      code === 0 ? ok({ ms: performance.now() - t0, stdout: out }) : fail(new Error(`${argv.join(' ')} exited ${code}: ${err.slice(-1000)}`)),
    );
  });
}

/**
 * `node --input-type=module -e` code that asks the daemon of `root` (the build in `repo`) for `op`; prints its answer
 * (JSON) and exits 0 if it answered ok.
 */
export function daemonCallCode(repo, root, op, timeoutMs) {
  return (
    `const { loadConfig } = await import(${JSON.stringify(join(repo, 'dist/index.js'))}); ` +
    `const { askDaemon } = await import(${JSON.stringify(join(repo, 'dist/daemon/client.js'))}); ` +
    `const r = await askDaemon(loadConfig(process.env, { root: ${JSON.stringify(root)} }), '${op}', undefined, ${timeoutMs ?? 'undefined'}); ` +
    `process.stdout.write(JSON.stringify(r), () => process.exit(r?.ok ? 0 : 1));`
  );
}
