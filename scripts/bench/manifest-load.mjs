// What loading a root's manifest costs (issue 13): wall time of JsonManifest.load(), the V8 heap it keeps and the
// process's resident memory after it, in a fresh process per run. Reads only (a version 4 manifest's chunk lists
// are copied to the store by load(), as any command does; its base is rewritten only by a sync's save).
//
// Usage: node --expose-gc scripts/bench/manifest-load.mjs --root <root> [--runs 3]. Needs a build (dist/). The heap
// kept is counted from after the imports; the RSS includes them (the whole `memdir/bench` kit).
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { JsonManifest } from 'memdir/bench';

const { values: args } = parseArgs({
  options: { root: { type: 'string' }, runs: { type: 'string', default: '3' }, child: { type: 'boolean', default: false } },
});
const state = join(resolve(args.root), '.mem');
const base = readdirSync(state).find((n) => /^manifest-[0-9a-f]+\.json$/.test(n));
const scope = base.slice('manifest-'.length, -'.json'.length);

if (args.child) {
  globalThis.gc();
  const heap0 = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const entries = await new JsonManifest(state, scope).load();
  const ms = performance.now() - t0;
  globalThis.gc();
  const mib = (n) => Math.round(n / 1024 / 1024);
  process.stdout.write(
    `${JSON.stringify({ entries: entries.size, loadMs: Math.round(ms), heapKeptMiB: mib(process.memoryUsage().heapUsed - heap0), rssMiB: mib(process.memoryUsage().rss) })}\n`,
  );
} else {
  const sizes = readdirSync(state)
    .filter((n) => n.startsWith(base))
    .map((n) => `${n.slice(base.length) || '(base)'} ${(statSync(join(state, n)).size / 1e6).toFixed(1)} MB`);
  process.stdout.write(`${sizes.join(', ')}\n`);
  for (let i = 0; i < Number(args.runs); i++) {
    process.stdout.write(execFileSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--root', args.root, '--child'], { encoding: 'utf8' }));
  }
}
