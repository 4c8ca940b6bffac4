// The prompt-recall hook's cost, for hooks.mjs --prompt: `mem hook claude-code prompt` as a new process fed Claude
// Code's UserPromptSubmit payload, with the search daemon up (warm) and with no daemon or server running (cold). A
// support module of hooks.mjs: the figures are reported there.
import { spawn } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve, dirname } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

import { QUERIES } from './corpus.mjs';
import { defaultsEnv } from './local.mjs';
import { memCommand } from './mem-command.mjs';
import { round, stats } from './stats.mjs';
import { chunkTexts, fillCacheWithRandomVectors } from './synthetic.mjs';

const MEM = memCommand(resolve(dirname(fileURLToPath(import.meta.url)), '..', '..'));
const TRACE = fileURLToPath(new URL('./prompt-trace.mjs', import.meta.url));
/** How long a cold start may take to reach the first recalled prompt before the run gives up on it. */
const WARM_UP_LIMIT_MS = 300_000;
const POLL_MS = 500;

/**
 * The environment of the hook and of the servers it starts: the embedded default (the provisioned runtime under the
 * real home), with this run's own servers and its own socket folder, so that stopping them touches nobody else's.
 */
export async function promptEnv(work, personal, user) {
  const run = join(work, 'run');
  await mkdir(run, { recursive: true, mode: 0o700 });
  return { ...defaultsEnv(), MEM_PERSONAL_ROOT: personal, MEM_USER: user, MEMDIR_SERVER_HOME: join(work, 'servers'), XDG_RUNTIME_DIR: run };
}

function mem(root, argv, env) {
  const t0 = performance.now();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(MEM.file, [...MEM.pre, '--root', root, '--json', ...argv], { env: { ...env, ...MEM.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolvePromise(performance.now() - t0) : reject(new Error(`mem ${argv.join(' ')} exited ${code}: ${err.slice(-500)}`)),
    );
  });
}

/** What the hook handed the agent: tokens (as the session-start figure counts them) and memory lines. */
function handed(stdout) {
  if (!stdout.trim()) return { tokens: 0, memories: 0 };
  const text = JSON.parse(stdout).hookSpecificOutput.additionalContext;
  return { tokens: Math.ceil(text.length / 4), memories: (text.match(/\(memory [^)]+\)/g) ?? []).length, text };
}

/** Indexes a root from synthetic vectors (no embedding: the dense ranking is meaningless, the latency is not). */
export async function indexWithSyntheticVectors(root, files, env) {
  await fillCacheWithRandomVectors(root, await chunkTexts(root, files));
  await mem(root, ['reindex'], env);
}

/**
 * Warm: the daemon answers, each prompt a new hook process. Cold: every daemon and server of this run stopped, one
 * prompt, then the next prompts until one gets memory back (how long the warm-up the first one started took).
 */
export async function promptRecallCost({ project, root, runs, coldRuns = runs, trace = false, env, payload, runHook, runBaseline, log }) {
  const hookLog = join(root, '.mem', 'hooks', 'log.jsonl');
  const input = (i) => ({ ...payload, cwd: project, prompt: QUERIES[i % QUERIES.length] });
  const prompt = (i) => runHook(['claude-code', 'prompt'], input(i), env);
  // Another checkout's hook on the same prompt and daemon, right before this one's: the two see the same load.
  const baseline = runBaseline && ((i) => runBaseline(['claude-code', 'prompt'], input(i), env));
  const traced = trace && ((i) => runHook(['claude-code', 'prompt'], input(i), env, undefined, ['--import', TRACE]));
  const stopAll = () => mem(root, ['server', 'stop', '--all'], env);
  // The same query through the same daemon as `mem search` asks it (its fast path), for what the hook adds to a search.
  const search = (i) => mem(root, ['search', QUERIES[i % QUERIES.length], '-k', '5'], env);
  const untilRecall = async (from) => {
    for (let i = 0; performance.now() - from < WARM_UP_LIMIT_MS; i++) {
      const r = await prompt(i);
      if (handed(r.stdout).memories > 0) return { ms: performance.now() - from, prompts: i + 1 };
      await sleep(POLL_MS);
    }
    return null;
  };

  try {
    return await measure({ personalRoot: env.MEM_PERSONAL_ROOT, prompt, baseline, traced, search, stopAll, untilRecall, runs, coldRuns, log, hookLog });
  } finally {
    await stopAll().catch(() => undefined);
  }
}

/** The in-process time the last `n` prompt hooks logged (the wall time less Node's start-up and the CLI's imports). */
async function loggedMs(hookLog, n) {
  const lines = (await readFile(hookLog, 'utf8')).trim().split('\n');
  return lines
    .map((l) => JSON.parse(l))
    .filter((e) => e.event === 'prompt')
    .slice(-n)
    .map((e) => e.ms);
}

/**
 * Where traced warm prompts spent their time, each step's p50 / p95 in ms: Node's start to the first line of
 * JavaScript, module loading and input to the first question, git, each root's question to its answer, the block
 * after the last answer until written, the end of the process (the hook log, the exit) and the OS's share after it.
 */
function steps(traces, personalRoot) {
  const rootOf = (t, personal) => t.asks.find((a) => a.root && (a.root === personalRoot) === personal);
  const pick = (f) => {
    const values = traces.map(f).filter((v) => Number.isFinite(v));
    const s = stats(values);
    return `${s.p50} / ${s.p95} (${values.length})`;
  };
  const answered = (t) => Math.max(...t.asks.map((a) => a.answered ?? Number.NaN));
  return {
    nodeStart: pick((t) => t.started),
    toFirstQuestion: pick((t) => Math.min(...t.asks.map((a) => a.called)) - t.started),
    git: pick((t) => Math.max(...t.git.map((g) => g.exited)) - Math.min(...t.git.map((g) => g.spawned))),
    projectAskedAfterGit: pick((t) => rootOf(t, false)?.called - Math.max(...t.git.map((g) => g.exited))),
    projectQuestion: pick((t) => rootOf(t, false)?.answered - rootOf(t, false)?.called),
    personalQuestion: pick((t) => rootOf(t, true)?.answered - rootOf(t, true)?.called),
    lastAnswerToWrite: pick((t) => t.writing - answered(t)),
    writeToExit: pick((t) => t.exit - t.writing),
    exitToClose: pick((t) => t.wall - t.exit),
    wall: pick((t) => t.wall),
  };
}

/** A process that does nothing: the start-up every hook pays before its own work, under the same load. */
function nodeStartup() {
  const t0 = performance.now();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', () => resolvePromise(performance.now() - t0));
  });
}

async function measure({ personalRoot, prompt, baseline, traced, search, stopAll, untilRecall, runs, coldRuns, log, hookLog }) {
  log('prompt recall: first start of the daemon and servers');
  if (!(await untilRecall(performance.now()))) throw new Error('the prompt hook never recalled a memory');
  const warm = { walls: [], tokens: [], memories: [], empty: 0, sample: '', startup: [], search: [], inProcess: [], traces: [] };
  const base = { walls: [], inProcess: [], same: 0 };
  for (let i = 0; i < runs; i++) {
    warm.startup.push(await nodeStartup());
    warm.search.push(await search(i));
    const b = baseline && (await baseline(i));
    if (b) {
      if (b.code !== 0) throw new Error(`the baseline's prompt hook exited ${b.code}`);
      base.walls.push(b.ms);
      base.inProcess.push(...(await loggedMs(hookLog, 1)));
    }
    const r = await prompt(i);
    if (r.code !== 0) throw new Error(`prompt hook exited ${r.code}`);
    warm.inProcess.push(...(await loggedMs(hookLog, 1)));
    if (b?.stdout === r.stdout) base.same++;
    const h = handed(r.stdout);
    warm.walls.push(r.ms);
    warm.tokens.push(h.tokens);
    warm.memories.push(h.memories);
    if (h.memories === 0) warm.empty++;
    if (i === 0) warm.sample = h.text ?? '';
    if (traced) {
      const t = await traced(i);
      const line = /^TRACE (.*)$/m.exec(t.stderr);
      if (line) warm.traces.push({ ...JSON.parse(line[1]), wall: t.ms });
    }
  }
  const inProcess = warm.inProcess;
  const [mine, theirs] = [stats(warm.walls), stats(base.walls)];
  const cold = { walls: [], inProcess: [], handedMemory: 0, warmUps: [], neverWarm: 0, answeredAtOnce: 0 };
  for (let i = 0; i < coldRuns; i++) {
    await stopAll();
    const r = await prompt(i);
    if (r.code !== 0) throw new Error(`prompt hook exited ${r.code}`);
    cold.walls.push(r.ms);
    cold.inProcess.push(...(await loggedMs(hookLog, 1)));
    if (handed(r.stdout).memories > 0) cold.handedMemory++;
    // The warm-up counts from the cold prompt's start: the next prompts go without memory until it is over.
    const up = await untilRecall(performance.now() - r.ms);
    if (!up) cold.neverWarm++;
    else {
      cold.warmUps.push(up.ms);
      // The first prompt after the cold one already got memory: the servers were up when the cold hook returned.
      if (up.prompts === 1) cold.answeredAtOnce++;
    }
    log(`cold prompt ${i + 1}/${coldRuns}: ${round(r.ms)} ms, memory again after ${up ? round(up.ms / 1000) : '-'} s`);
  }
  return {
    ...(baseline
      ? {
          baseline: {
            wall: stats(base.walls),
            inProcess: stats(base.inProcess),
            // This tree's percentile over the baseline's, each over the same alternated runs.
            ratio: { p50: round(mine.p50 / theirs.p50, 2), p95: round(mine.p95 / theirs.p95, 2) },
            sameOutput: base.same,
          },
        }
      : {}),
    ...(traced ? { trace: steps(warm.traces, personalRoot) } : {}),
    warm: {
      wall: mine,
      inProcess: stats(inProcess),
      nodeStartup: stats(warm.startup),
      memSearch: stats(warm.search),
      tokens: stats(warm.tokens),
      memories: stats(warm.memories),
      promptsWithoutMemory: warm.empty,
      sample: warm.sample.slice(0, 600),
    },
    cold: {
      wall: stats(cold.walls),
      inProcess: stats(cold.inProcess),
      promptsWithMemory: cold.handedMemory,
      serversUpWhenItReturned: cold.answeredAtOnce,
      warmUpSeconds: stats(cold.warmUps.map((ms) => ms / 1000)),
      neverWarm: cold.neverWarm,
    },
  };
}
