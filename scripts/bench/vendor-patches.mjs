// `npm run bench:vendor-patches`: what each patch-package patch (patches/) saves, measured against the same package
// unpatched (a copy with the patch reversed, under node_modules/.vendor-bench): the CPU time a process spends loading
// the Milvus SDK and making a client (what every `mem` command that touches the index pays), and loading js-yaml (what
// every process that reads front matter pays). Each case runs in fresh processes, alternating, --runs times (default 15);
// the medians are printed, and with --json as one object.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const top = fileURLToPath(new URL('../..', import.meta.url));
const runsArg = process.argv.indexOf('--runs');
const runs = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 15;
const json = process.argv.includes('--json');
const bench = join(top, 'node_modules', '.vendor-bench');

/** A copy of `pkg` with `patchFile` reversed, under bench/node_modules (its dependencies still resolve from the project). */
function unpatchedCopy(pkg, patchFile) {
  cpSync(join(top, 'node_modules', pkg), join(bench, 'node_modules', pkg), { recursive: true });
  execFileSync('patch', ['-R', '-p1', '-s', '-d', bench, '-i', join(top, 'patches', patchFile)]);
  return join(bench, 'node_modules', pkg);
}

// Each snippet loads the package at PKG and prints the process's CPU microseconds spent from start to then.
const CASES = {
  'Milvus SDK: load and make a client': (pkg) =>
    `const { MilvusClient } = require(${JSON.stringify(pkg)}); new MilvusClient({ address: '127.0.0.1:1' }).connectPromise.catch(() => {});`,
  'js-yaml: load': (pkg) => `require(${JSON.stringify(pkg)});`,
};
const PACKAGES = {
  'Milvus SDK: load and make a client': ['@zilliz/milvus2-sdk-node', '@zilliz+milvus2-sdk-node+3.0.6.patch'],
  'js-yaml: load': ['js-yaml', 'js-yaml+3.15.2.patch'],
};

function cpuMs(code) {
  // Measured right after the snippet, then the process exits at once (a client's connection attempts are not counted).
  const measure = 'const u = process.cpuUsage(); console.log((u.user + u.system) / 1000); process.exit(0);';
  const out = spawnSync(process.execPath, ['-e', `${code} ${measure}`], { cwd: top, encoding: 'utf8' });
  if (out.status !== 0) throw new Error(out.stderr);
  return Number(out.stdout.trim());
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

rmSync(bench, { recursive: true, force: true });
mkdirSync(bench, { recursive: true });
const results = {};
try {
  const baseline = [];
  for (let i = 0; i < runs; i++) baseline.push(cpuMs(''));
  results['node alone'] = { ms: median(baseline) };
  for (const [name, make] of Object.entries(CASES)) {
    const [pkg, patchFile] = PACKAGES[name];
    const patched = join(top, 'node_modules', pkg);
    const unpatched = unpatchedCopy(pkg, patchFile);
    if (readFileSync(join(top, 'patches', patchFile), 'utf8').length === 0) throw new Error(`empty patch ${patchFile}`);
    const a = [];
    const b = [];
    for (let i = 0; i < runs; i++) {
      a.push(cpuMs(make(patched)));
      b.push(cpuMs(make(unpatched)));
    }
    const round = (ms) => Math.round(ms * 10) / 10;
    results[name] = { patchedMs: round(median(a)), unpatchedMs: round(median(b)), savedMs: round(median(b) - median(a)) };
  }
} finally {
  rmSync(bench, { recursive: true, force: true });
}
if (json) console.log(JSON.stringify({ runs, node: process.version, results }));
else for (const [name, r] of Object.entries(results)) console.log(`${name}: ${JSON.stringify(r)}`);
