// Benchmark of `mem sync`: a machine brings in 100 files another clone changed (wall time, and texts embedded —
// only the texts this machine never embedded), then a merge where both clones changed the same 100 files (the merge
// driver runs once per file: git merge's wall time divided by the files).
//
// Usage: node scripts/bench/sync.mjs [--files 100] [--json] [--keep]   (or `npm run bench:sync -- --files 200`)
// Real parts throughout: git, a bare remote in a temporary folder, the shared Milvus Lite and the local model.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { defaultsEnv, memJson } from './local.mjs';

const { values: args } = parseArgs({
  options: {
    files: { type: 'string', default: '100' },
    json: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const FILES = Number(args.files);
const childEnv = { ...defaultsEnv(), MEM_DAEMON: 'off' };
const log = (msg) => process.stderr.write(`[bench:sync] ${msg}\n`);
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const git = (cwd, ...a) => execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@localhost', ...a], { cwd, encoding: 'utf8', stdio: 'pipe' });

/** Runs `mem --root <root> --json ...args`; returns the parsed result and the wall time in ms. */
const mem = (root, cliArgs) => memJson(root, cliArgs, childEnv);

const TOPICS = ['the garden', 'the ferry', 'the cello', 'the bakery', 'the bike', 'the library', 'the harbour', 'the orchard', 'the studio', 'the market'];
const path = (i) => `alice/semantic/note-${String(i).padStart(4, '0')}.md`;
const memory = (i, tags, lines) =>
  `---\nid: note-${i}\nuser: alice\ntype: semantic\ncreated: 2026-11-01T08:00:00.000Z\nupdated: 2026-11-01T08:00:00.000Z\ntags: [${tags.join(', ')}]\n---\n${lines.join('\n')}\n`;
const firstLines = (i) => [
  `Note ${i}: Alice talked about ${TOPICS[i % TOPICS.length]} on day ${i}.`,
  `She mentioned number ${i * 7 + 3} twice.`,
  `It was filed under ${TOPICS[(i * 3) % TOPICS.length]}.`,
];

async function writeFiles(root, make) {
  for (let i = 0; i < FILES; i++) {
    await mkdir(dirname(join(root, path(i))), { recursive: true });
    await writeFile(join(root, path(i)), make(i));
  }
}

async function main() {
  const dir = await mkdtemp(join(os.tmpdir(), 'memdir-bench-sync-'));
  const [here, there, remote] = ['here', 'there', 'remote.git'].map((n) => join(dir, n));
  const out = {
    date: new Date().toISOString(),
    command: `node scripts/bench/sync.mjs ${process.argv.slice(2).join(' ')}`.trim(),
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model?.trim(), memoryGiB: round(os.totalmem() / 1024 ** 3, 1), node: process.version },
    loadAverageAtStart: os.loadavg().map((x) => round(x)),
    files: FILES,
  };
  try {
    git(dir, 'init', '-q', '--bare', '-b', 'main', remote);
    await mkdir(here);
    git(here, 'init', '-q', '-b', 'main');
    git(here, 'remote', 'add', 'origin', remote);
    await writeFiles(here, (i) => memory(i, ['notes'], firstLines(i)));
    log(`this machine: ${FILES} files, indexed and pushed by its first sync`);
    const first = await mem(here, ['sync']);
    out.firstSync = { seconds: round(first.ms / 1000), embedded: first.result.index.embedded };

    // The other machine changes every file: half get a new sentence (a text never embedded here), half only new tags.
    git(dir, 'clone', '-q', remote, there);
    await writeFiles(there, (i) =>
      i % 2 === 0
        ? memory(i, ['notes'], [...firstLines(i), `Later Alice added detail ${i} about ${TOPICS[(i + 5) % TOPICS.length]}.`])
        : memory(i, ['notes', 'reviewed'], firstLines(i)),
    );
    git(there, 'commit', '-qam', `change ${FILES} files`);
    git(there, 'push', '-q', 'origin', 'main');
    log(`bringing in ${FILES} changed files`);
    const incoming = await mem(here, ['sync']);
    out.incoming = {
      seconds: round(incoming.ms / 1000),
      changedFiles: incoming.result.incoming.changed.length,
      embedded: incoming.result.index.embedded,
      newTexts: Math.ceil(FILES / 2),
      upserted: incoming.result.index.upserted,
    };

    // Both machines change the same files, on different lines: git runs the merge driver once per file.
    git(there, 'pull', '-q', '--no-rebase', 'origin', 'main');
    for (let i = 0; i < FILES; i++) {
      const mine = (await readFile(join(here, path(i)), 'utf8')).replace(`Note ${i}:`, `Note ${i} (checked):`);
      await writeFile(join(here, path(i)), mine);
      const theirs = (await readFile(join(there, path(i)), 'utf8')).replace(/\n$/, `\nOn review Alice confirmed note ${i}.\n`);
      await writeFile(join(there, path(i)), theirs);
    }
    git(here, 'commit', '-qam', 'checked');
    git(there, 'commit', '-qam', 'reviewed');
    git(there, 'push', '-q', 'origin', 'main');
    git(here, 'fetch', '-q', 'origin');
    const t0 = performance.now();
    git(here, 'merge', '--no-edit', '-q', 'origin/main');
    const mergeMs = performance.now() - t0;
    const merged = await readFile(join(here, path(0)), 'utf8');
    if (!merged.includes('(checked)') || !merged.includes('On review')) throw new Error(`the driver did not unite both changes:\n${merged}`);
    out.driver = { files: FILES, mergeSeconds: round(mergeMs / 1000), msPerFile: round(mergeMs / FILES, 1) };
    const after = await mem(here, ['sync']);
    out.afterMerge = { seconds: round(after.ms / 1000), embedded: after.result.index.embedded, pushed: after.result.outgoing.commits };
  } finally {
    await mem(here, ['server', 'stop']).catch(() => {});
    if (!args.keep) await rm(dir, { recursive: true, force: true });
    else log(`kept ${dir}`);
  }
  if (args.json) process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  else {
    process.stdout.write(
      [
        `machine: ${out.machine.cpus} cores (${out.machine.cpuModel}), ${out.machine.memoryGiB} GiB, node ${out.machine.node}; load at start ${out.loadAverageAtStart.join(' ')}`,
        `first sync of ${FILES} files: ${out.firstSync.seconds} s, ${out.firstSync.embedded} texts embedded`,
        `sync bringing in ${out.incoming.changedFiles} changed files (${out.incoming.newTexts} with a new text): ${out.incoming.seconds} s, ${out.incoming.embedded} texts embedded`,
        `merge driver: ${out.driver.files} files changed on both sides, git merge ${out.driver.mergeSeconds} s, ${out.driver.msPerFile} ms per file`,
        `sync after that merge (index + push): ${out.afterMerge.seconds} s, ${out.afterMerge.embedded} texts embedded`,
      ].join('\n') + '\n',
    );
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
