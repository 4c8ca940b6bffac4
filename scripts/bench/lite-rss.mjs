// Milvus Lite's resident memory over a root's life (issue 13): a first full index from a fresh server, the background
// index builds after it, searches, then rest; VmRSS, RssAnon and the CPU of the server sampled from /proc twice a
// second, summed per phase (the highest VmRSS, the one at the phase's end, the kernel's VmHWM so far, the CPU used).
//
// Usage: node scripts/bench/lite-rss.mjs --root DIR [--mem path/to/bin/mem.js] [--search-seconds 60] [--rest-seconds 30]
//                                         [--samples out.jsonl] [--json]
// DIR is a root made by `node scripts/bench/rss.mjs --files N --runs 0 --root DIR` (corpus + synthetic vectors). Its
// servers live in DIR-servers: they are stopped, Milvus Lite's data there is removed and the root's manifest too, so
// the run starts a fresh server (its VmHWM is this run's) and `mem reindex` is a first full index. --mem runs another
// build of memdir (e.g. a checkout of an older commit) on the same root. The servers are stopped at the end.
import { spawn } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { QUERIES, USERS } from './corpus.mjs';
import { defaultsEnv } from './local.mjs';
import { machine, round } from './stats.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values: args } = parseArgs({
  options: {
    root: { type: 'string' },
    mem: { type: 'string', default: join(REPO, 'bin', 'mem.js') },
    'search-seconds': { type: 'string', default: '60' },
    'rest-seconds': { type: 'string', default: '30' },
    samples: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
if (!args.root) throw new Error('--root DIR is required (make one with scripts/bench/rss.mjs --runs 0 --root DIR)');
const root = resolve(args.root);
const home = `${root}-servers`;
const MEM = resolve(args.mem);
const env = { ...defaultsEnv(), MEMDIR_SERVER_HOME: home, MEM_GIT: 'off' };
const SAMPLE_MS = 500;
// As the main bench: quiet is under 10 % of a core in each of 3 consecutive seconds, waited for at most 900 s.
const QUIET_SHARE = 0.1;
const QUIET_SECONDS = 3;
const QUIET_WAIT_MS = 900_000;
const log = (msg) => process.stderr.write(`[lite-rss] ${msg}\n`);

function mem(cliArgs) {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [MEM, '--root', root, '--json', ...cliArgs], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', fail);
    child.on('close', (code) => {
      if (code !== 0) return fail(new Error(`mem ${cliArgs.join(' ')} exited with ${code}: ${out.slice(-500)} ${err.slice(-1500)}`));
      done(JSON.parse(out.trim().split('\n').filter(Boolean).pop() ?? 'null'));
    });
  });
}

/** VmRSS, VmHWM, RssAnon, RssFile (MiB) and CPU seconds (utime + stime) of a process, or null once it is gone. */
async function sample(pid) {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const mib = (k) => round(Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024, 1);
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).replace(/^.*\) /, '').split(' ');
    return { rss: mib('VmRSS'), hwm: mib('VmHWM'), anon: mib('RssAnon'), file: mib('RssFile'), cpu: (Number(fields[11]) + Number(fields[12])) / 100 };
  } catch {
    return null;
  }
}

/** Index files written by Milvus Lite so far (one per segment and indexed field). */
async function indexFiles(dir) {
  let n = 0;
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    if (entry.isDirectory()) n += await indexFiles(join(dir, entry.name));
    else if (entry.name.endsWith('.idx')) n++;
  }
  return n;
}

async function main() {
  await mem(['server', 'stop']).catch((e) => log(`server stop: ${e.message.slice(0, 200)}`));
  // A fresh start: Milvus Lite's data (this root's server home only) and the root's manifest removed, the vector cache kept.
  await rm(join(home, 'milvus'), { recursive: true, force: true });
  for (const name of await readdir(join(root, '.mem'))) {
    if (name.startsWith('manifest-') || name === 'purge-pending' || name === 'access.json')
      await rm(join(root, '.mem', name), { recursive: true, force: true });
  }
  await mem(['setup']);
  const { pid } = JSON.parse(await readFile(join(home, 'servers', 'milvus-lite.json'), 'utf8'));
  const t0 = performance.now();
  const phases = [];
  let phase = null;
  let last = null;
  const enter = (name) => {
    phase = { name, startS: round((performance.now() - t0) / 1000, 1), load: round(os.loadavg()[0], 1), cpuStart: last?.cpu ?? 0, maxRss: 0, maxAnon: 0 };
    phases.push(phase);
    log(`${name} (load ${phase.load}, Lite VmRSS ${last?.rss ?? '?'} MiB)`);
  };
  if (args.samples) writeFileSync(args.samples, '');
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const s = await sample(pid);
      if (s) {
        last = s;
        if (phase) {
          phase.maxRss = Math.max(phase.maxRss, s.rss);
          phase.maxAnon = Math.max(phase.maxAnon, s.anon);
        }
        if (args.samples) appendFileSync(args.samples, `${JSON.stringify({ t: round((performance.now() - t0) / 1000, 1), phase: phase?.name, ...s })}\n`);
      }
      await sleep(SAMPLE_MS);
    }
  })();
  const close = () => {
    Object.assign(phase, {
      seconds: round((performance.now() - t0) / 1000 - phase.startS, 1),
      endRss: last?.rss,
      endAnon: last?.anon,
      hwm: last?.hwm,
      cpu: round((last?.cpu ?? 0) - phase.cpuStart, 1),
      loadEnd: round(os.loadavg()[0], 1),
    });
    delete phase.cpuStart;
  };
  try {
    enter('setup');
    await sleep(3000);
    close();
    enter('full index');
    const index = await mem(['reindex']);
    phase.rows = index.upserted;
    phase.files = index.files;
    phase.indexFilesAtEnd = await indexFiles(join(home, 'milvus'));
    close();
    enter('builds (until quiet)');
    let calm = 0;
    const started = performance.now();
    while (calm < QUIET_SECONDS && performance.now() - started < QUIET_WAIT_MS) {
      const a = last?.cpu ?? 0;
      await sleep(1000);
      calm = (last?.cpu ?? 0) - a < QUIET_SHARE ? calm + 1 : 0;
    }
    phase.quiet = calm >= QUIET_SECONDS;
    phase.indexFilesAtEnd = await indexFiles(join(home, 'milvus'));
    close();
    enter('searches');
    const searchEnd = performance.now() + Number(args['search-seconds']) * 1000;
    let n = 0;
    while (performance.now() < searchEnd) {
      await mem(['search', QUERIES[n % QUERIES.length], '--user', USERS[n % USERS.length]]);
      n++;
    }
    phase.searches = n;
    close();
    enter('rest');
    await sleep(Number(args['rest-seconds']) * 1000);
    close();
  } finally {
    sampling = false;
    await sampler;
    await mem(['server', 'stop']).catch((e) => log(`server stop: ${e.message.slice(0, 200)}`));
  }
  const out = {
    date: new Date().toISOString(),
    command: `node scripts/bench/lite-rss.mjs ${process.argv.slice(2).join(' ')}`,
    mem: MEM,
    machine: machine(),
    phases,
  };
  if (args.json) process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  else {
    for (const p of phases) {
      process.stdout.write(
        `${p.name.padEnd(22)} ${String(p.seconds).padStart(6)} s  load ${p.load}->${p.loadEnd}  Lite CPU ${p.cpu} s  VmRSS max ${p.maxRss} end ${p.endRss} MiB  anon max ${p.maxAnon} end ${p.endAnon}  VmHWM ${p.hwm}` +
          `${p.rows !== undefined ? `  rows ${p.rows}` : ''}${p.indexFilesAtEnd !== undefined ? `  .idx ${p.indexFilesAtEnd}` : ''}${p.searches !== undefined ? `  searches ${p.searches}` : ''}\n`,
      );
    }
  }
}

main().catch((err) => {
  process.stderr.write(`[lite-rss] FAILED: ${err.stack ?? err}\n`);
  process.exitCode = 1;
});
