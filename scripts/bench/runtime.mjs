// One runtime per machine: five memory roots in use at once (each indexed, and searched until the search daemon holds
// it open), then the processes memdir runs for them and their total resident memory, read from /proc. Target: at most
// one Milvus Lite, one embedding server and one search daemon, and at most 1 GiB resident in all.
//
// Usage: node scripts/bench/runtime.mjs [--roots 5] [--files 0] [--json]   (or `npm run bench:runtime`). Needs a build.
// --files N gives each root N files of the bench corpus (scripts/bench/corpus.mjs, another seed per root) with
// synthetic vectors in its cache (no embedding), instead of 20 one-line notes; the resident memory is then read once
// Milvus Lite is quiet again (its index builds over), and the servers' peaks (VmHWM) beside it.
// The servers run under a server home of the run's own (MEMDIR_SERVER_HOME), stopped and removed at the end.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { QUERIES, USERS, generateCorpus } from './corpus.mjs';
import { defaultsEnv } from './local.mjs';
import { chunkTexts, fillCacheWithRandomVectors } from './synthetic.mjs';
import { machine, round } from './stats.mjs';

const { values: args } = parseArgs({
  options: { roots: { type: 'string', default: '5' }, files: { type: 'string', default: '0' }, json: { type: 'boolean', default: false } },
});
const ROOTS = Number(args.roots);
const FILES = Number(args.files);
// The corpus's users and queries for generated roots; the one-line notes are all Ann's.
const QUERY = FILES > 0 ? QUERIES[0] : 'which option did Ann decide on';
const USER = FILES > 0 ? USERS[0] : 'ann';
// Quiet: Milvus Lite under 10 % of a core in each of 3 consecutive seconds (as scripts/bench/run.mjs), at most 900 s.
const QUIET_WAIT_MS = 900_000;
const MEM = fileURLToPath(new URL('../../bin/mem.js', import.meta.url));
const log = (msg) => process.stderr.write(`[bench:runtime] ${msg}\n`);

function mem(root, cliArgs, env) {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [MEM, '--root', root, '--json', ...cliArgs], { env, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err && !stdout) reject(new Error(`mem ${cliArgs.join(' ')} failed: ${stderr}`));
      else resolve(JSON.parse(stdout));
    }),
  );
}

/** Resident memory (VmRSS) and its peak so far (VmHWM) of a process, from /proc. */
async function proc(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const mib = (key) => {
    const kb = new RegExp(`${key}:\\s+(\\d+)\\s+kB`).exec(status);
    return kb ? round(Number(kb[1]) / 1024, 0) : null;
  };
  return { pid, rssMiB: mib('VmRSS'), peakMiB: mib('VmHWM') };
}

/** CPU seconds (utime + stime) of a process so far, from /proc. */
async function cpuSeconds(pid) {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')).replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Waits until the process uses under 10 % of a core in each of 3 consecutive seconds; the seconds waited. */
async function quiet(pid) {
  const t0 = Date.now();
  let calm = 0;
  while (calm < 3 && Date.now() - t0 < QUIET_WAIT_MS) {
    const a = await cpuSeconds(pid);
    await sleep(1000);
    calm = (await cpuSeconds(pid)) - a < 0.1 ? calm + 1 : 0;
  }
  return round((Date.now() - t0) / 1000, 0);
}

/** The shared servers of this server home: their environment names its records folder. */
async function sharedServers(home) {
  const found = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const environ = await readFile(`/proc/${name}/environ`, 'utf8').catch(() => '');
    if (!environ.split('\0').includes(`MEMDIR_SERVER_WATCH=${join(home, 'servers')}`)) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    found.push({ kind: cmdline.includes('milvus_lite') ? 'milvus-lite' : 'embedder', ...(await proc(Number(name))) });
  }
  return found;
}

/** The search daemons of this server home (`mem daemon` processes whose environment names it). */
async function searchDaemons(home) {
  const found = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = (await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '')).split('\0').filter(Boolean);
    if (!cmdline.slice(2).includes('daemon')) continue; // `mem --root <root> daemon [--warm-user <user>]`
    const environ = await readFile(`/proc/${name}/environ`, 'utf8').catch(() => '');
    if (environ.split('\0').includes(`MEMDIR_SERVER_HOME=${home}`)) found.push(Number(name));
  }
  return found;
}

async function main() {
  const dir = await mkdtemp(join(os.tmpdir(), 'memdir-bench-runtime-'));
  const home = join(dir, 'server-home');
  const env = { ...defaultsEnv(), MEMDIR_SERVER_HOME: home, MEM_GIT: 'off', MEM_DAEMON: 'on' };
  const roots = [];
  try {
    for (let i = 0; i < ROOTS; i++) {
      const root = join(dir, `project-${i}`, 'memories');
      if (FILES > 0) {
        log(`generating ${FILES} files and their synthetic vectors in ${root}`);
        const { files } = await generateCorpus(root, FILES, 20260101 + i);
        await fillCacheWithRandomVectors(root, await chunkTexts(root, files));
      } else {
        await mkdir(join(root, 'ann', 'semantic'), { recursive: true });
        for (let j = 0; j < 20; j++) {
          await writeFile(join(root, 'ann', 'semantic', `note-${j}.md`), `# Note ${j} of project ${i}\n\nAnn decided on option ${j} for project ${i}.\n`);
        }
      }
      roots.push(root);
    }
    const indexed = [];
    for (const root of roots) {
      log(`indexing and searching ${root}`);
      indexed.push((await mem(root, ['reindex'], env)).upserted);
      await mem(root, ['search', QUERY, '--user', USER], env);
    }
    // The search daemon (one for all roots) starts in the background after the first search and opens each root on
    // its first search through it: search again until it holds all of them.
    let held = [];
    for (let t = 0; t < 240 && held.length < roots.length; t++) {
      for (const root of roots) if (!held.includes(root)) await mem(root, ['search', QUERY, '--user', USER], env);
      held = (await mem(roots[0], ['server', 'status'], env)).daemon?.roots ?? [];
      if (held.length < roots.length) await sleep(500);
    }
    // Generated roots: read once Milvus Lite has built the indexes of what they wrote (and searched again after).
    let quietSeconds = null;
    const lite = (await sharedServers(home)).find((s) => s.kind === 'milvus-lite');
    if (FILES > 0 && lite) {
      quietSeconds = await quiet(lite.pid);
      log(`Milvus Lite quiet after ${quietSeconds} s`);
      for (const root of roots) await mem(root, ['search', QUERY, '--user', USER], env);
    }
    const daemons = await Promise.all((await searchDaemons(home)).map(proc));
    const servers = await sharedServers(home);
    const status = await mem(roots[0], ['server', 'status'], env);
    const total = [...servers, ...daemons].reduce((n, p) => n + (p.rssMiB ?? 0), 0);
    const out = {
      date: new Date().toISOString(),
      command: `node scripts/bench/runtime.mjs ${process.argv.slice(2).join(' ')}`.trim(),
      machine: machine(),
      loadAverage: os.loadavg().map((x) => round(x, 2)),
      roots: ROOTS,
      filesPerRoot: FILES > 0 ? FILES : 20,
      rowsPerRoot: indexed,
      quietWaitSeconds: quietSeconds,
      sharedServers: servers,
      searchDaemons: daemons,
      rootsOpenInDaemon: status.daemon?.roots?.length ?? 0,
      rootsServed: status.roots.map((r) => ({ collection: r.collection, state: r.state })),
      processes: servers.length + daemons.length,
      serversRssMiB: servers.reduce((n, p) => n + (p.rssMiB ?? 0), 0),
      daemonsRssMiB: daemons.reduce((n, p) => n + (p.rssMiB ?? 0), 0),
      totalRssMiB: total,
      target: { maxServersOfEachKind: 1, maxTotalMiB: 1024 },
      meetsTarget:
        servers.filter((s) => s.kind === 'milvus-lite').length <= 1 &&
        servers.filter((s) => s.kind === 'embedder').length <= 1 &&
        daemons.length <= 1 &&
        total <= 1024,
    };
    if (args.json) process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    else {
      process.stdout.write(
        `${ROOTS} roots of ${out.filesPerRoot} files: ${servers.map((s) => `${s.kind} ${s.rssMiB} MiB (peak ${s.peakMiB})`).join(', ')}; ` +
          `${daemons.length} search daemon(s) ${out.daemonsRssMiB} MiB holding ${out.rootsOpenInDaemon} roots; ` +
          `${out.processes} processes, ${total} MiB resident in all (target: one server of each kind, <= 1024 MiB): ${out.meetsTarget ? 'met' : 'NOT met'}\n`,
      );
    }
  } finally {
    if (roots[0]) await mem(roots[0], ['server', 'stop', '--all'], env).catch((err) => log(String(err)));
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
