// Benchmark of the git merge driver for memory files: the time git spends per file it hands to the driver.
//
// Usage: node scripts/bench/merge-driver.mjs [--files 100] [--json] [--keep]  (or `npm run bench:merge-driver`).
// Needs a build; no runtime or server is used.
//
// A fresh repository whose root holds `--files` memories and as many day logs; two branches change every one of
// them (each memory's same line, each day log a new session), so `git merge` runs the driver once per file (half
// of the memories also keep the other side's version beside them). Reported: the merge's wall time divided by the
// files merged, the CPU time of git and the drivers per file (what the load of a shared machine does not change),
// and, as the floor, one `git merge` of as many files with git's own `merge=union`.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { machine, round } from './stats.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values: args } = parseArgs({
  options: { files: { type: 'string', default: '100' }, json: { type: 'boolean', default: false }, keep: { type: 'boolean', default: false } },
});
const N = Number(args.files);
// What any mem command writes into a clone (src/adapters/git/merge-driver.ts): this node and this checkout's driver.
const DRIVER = `'${process.execPath}' '${join(REPO, 'bin', 'mem-merge-file.js')}' %O %A %B %P`;

const memory = (i, updated, body) =>
  `---\nid: m${i}\nuser: ann\ntype: semantic\ncreated: 2026-11-01T08:00:00.000Z\nupdated: ${updated}\ntags: [t${i}]\n---\n${body}\n`;
const session = (time, text) =>
  `## Session 2026-12-01 ${time} UTC · bench\n\n_Conversation from bench, ingested 2026-12-01T${time}:00.000Z, 1 turns, sha256 ${Buffer.from(text).toString('hex').slice(0, 16).padEnd(16, '0')}._\n\n**user** (${time}): ${text}`;
const log = (i, updated, sessions) =>
  `---\nid: ann/episodic/d${i}\nuser: ann\ntype: episodic\nupdated: ${updated}\n---\n# Conversations\n\n${sessions.join('\n\n')}\n`;

/** CPU seconds of this process's finished children (git, and the drivers git ran): Linux's cutime + cstime. */
function childCpuMs() {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100; // USER_HZ is 100 on Linux
}

async function scenario(attribute) {
  const dir = await mkdtemp(join(os.tmpdir(), 'memdir-bench-merge-'));
  const git = (...a) => execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', ...a], { cwd: dir, encoding: 'utf8', stdio: 'pipe' });
  const write = async (files) => {
    for (const [path, text] of files) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    }
  };
  const files = (side) => {
    const out = [];
    for (let i = 0; i < N; i++) {
      // Half the memories change the same line on both sides (kept beside), half different lines (united).
      const body =
        side === 'o'
          ? `Fact ${i} first.\n\nFact ${i} second.`
          : i % 2
            ? `Fact ${i} first, ${side}.\n\nFact ${i} second.`
            : side === 'a'
              ? `Fact ${i} first, a.\n\nFact ${i} second.`
              : `Fact ${i} first.\n\nFact ${i} second, b.`;
      out.push([
        `ann/semantic/m${i}.md`,
        memory(i, side === 'a' ? '2026-12-01T10:00:00Z' : side === 'b' ? '2026-12-02T10:00:00Z' : '2026-11-01T08:00:00Z', body),
      ]);
      const sessions = [session('08:00', `start ${i}`), ...(side === 'o' ? [] : [session(side === 'a' ? '09:00' : '10:00', `${side} ${i}`)])];
      out.push([`ann/episodic/d${i}.md`.replace(`d${i}`, `2026-12-${String((i % 28) + 1).padStart(2, '0')}-${i}`), log(i, '2026-12-01T10:00:00Z', sessions)]);
    }
    return out;
  };
  git('init', '-q', '-b', 'main');
  await write(files('o'));
  git('add', '-A');
  git('commit', '-qm', 'o');
  git('checkout', '-q', '-b', 'b');
  await write(files('b'));
  git('commit', '-qam', 'b');
  git('checkout', '-q', 'main');
  await write(files('a'));
  git('commit', '-qam', 'a');
  if (attribute === 'memdir') git('config', 'merge.memdir.driver', DRIVER);
  await mkdir(join(dir, '.git', 'info'), { recursive: true });
  await writeFile(join(dir, '.git', 'info', 'attributes'), `*.md merge=${attribute}\n`);
  const [start, cpu] = [performance.now(), childCpuMs()];
  git('merge', '--no-edit', '-q', 'b');
  const ms = performance.now() - start;
  const cpuMs = childCpuMs() - cpu;
  const conflicts = git('diff', '--name-only', '--diff-filter=U').trim();
  if (conflicts) throw new Error(`unmerged after the merge: ${conflicts}`);
  if (!args.keep) await rm(dir, { recursive: true, force: true });
  return { ms, cpuMs };
}

const driver = await scenario('memdir');
const union = await scenario('union');
const files = 2 * N;
const result = {
  files,
  memdirMergeMs: round(driver.ms),
  perFileMs: round(driver.ms / files, 1),
  perFileCpuMs: round(driver.cpuMs / files, 1),
  gitUnionMergeMs: round(union.ms),
  gitUnionCpuMs: round(union.cpuMs),
  loadAverage: os.loadavg().map((l) => round(l, 1)),
  machine: machine(),
};
if (args.json) console.log(JSON.stringify(result, null, 2));
else {
  console.log(`git merge of ${files} memory files changed on both sides (${N} memories, ${N} day logs)`);
  console.log(`  memdir driver: ${result.memdirMergeMs} ms wall, ${result.perFileMs} ms per file (CPU ${result.perFileCpuMs} ms per file)`);
  console.log(`  git's merge=union (floor, no process per file): ${result.gitUnionMergeMs} ms wall, CPU ${result.gitUnionCpuMs} ms`);
  console.log(`  load average ${result.loadAverage.join(' ')} on ${result.machine.cpuCount} cores`);
}
