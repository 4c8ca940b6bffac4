// Benchmark of the agent hooks' time budgets: how long `mem hook claude-code session-start` takes (it
// reads the memory files, no servers) at several project sizes, how long a capture hook (Stop) takes
// to hand its work to the detached worker and return, and (--prompt) what the per-prompt recall hook
// (UserPromptSubmit) costs with its search daemon up and with nothing running.
//
// Usage: node scripts/bench/hooks.mjs [--sizes 1000,10000] [--runs 10] [--prompt] [--prompt-runs 20] [--cold-runs N]
//        [--trace] [--json] [--keep] [--baseline <checkout>] (or `npm run bench:hooks`). Needs a build; only --prompt
//        uses the embedded runtime and its servers. --baseline names another built checkout of memdir: its prompt hook
//        runs alternately with this one's on the same warm daemon, so the two are compared under the same load (a shared
//        machine's varies). --cold-runs: cold prompts (default --prompt-runs; each waits seconds for the warm-up, so a
//        p95 of many warm prompts can go with fewer). --trace: after each timed warm prompt, one more through
//        scripts/bench/prompt-trace.mjs (not timed with the others), and where its time went, step by step.
//
// Each size is a generated corpus (scripts/bench/corpus.mjs: ten users, four memory types) as the
// memories/ folder of a fresh git repository, plus a personal root of 200 files. Every run is the hook
// command that checkout's `mem integrate` writes (`MEMDIR_NODE=<node> bin/mem hook ...`; before the
// launcher, `node bin/mem.js hook ...`), run by `sh -c` and fed the recorded payload on stdin, as an
// agent runs it; the wall time includes the shell's and Node's start-up. The in-process time is the `ms` the hook logged.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { generateCorpus } from './corpus.mjs';
import { hookShellCommand } from './mem-command.mjs';
import { indexWithSyntheticVectors, promptEnv, promptRecallCost } from './prompt-recall.mjs';
import { machine, round, stats } from './stats.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIXTURES = join(REPO, 'test', 'fixtures', 'agents');

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,10000' },
    runs: { type: 'string', default: '10' },
    json: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    prompt: { type: 'boolean', default: false },
    'prompt-runs': { type: 'string', default: '20' },
    'cold-runs': { type: 'string' },
    trace: { type: 'boolean', default: false },
    baseline: { type: 'string' },
  },
});
const SIZES = args.sizes.split(',').map(Number);
const RUNS = Number(args.runs);
const PROMPT_RUNS = Number(args['prompt-runs']);
const COLD_RUNS = Number(args['cold-runs'] ?? PROMPT_RUNS);
const log = (msg) => process.stderr.write(`[bench] ${msg}\n`);
const USER = 'alice';

/**
 * One hook process, the command that checkout's `mem integrate` writes, run by `sh -c`; `node` options (a traced run's
 * --import) reach its Node through NODE_OPTIONS, as nothing can go between the launcher and Node, and its stderr is
 * kept only then.
 */
function runHook(argv, payload, env, checkout = REPO, node = []) {
  const started = performance.now();
  return new Promise((resolvePromise, reject) => {
    const childEnv = node.length ? { ...env, NODE_OPTIONS: [env.NODE_OPTIONS, ...node].filter(Boolean).join(' ') } : env;
    const child = spawn('/bin/sh', ['-c', hookShellCommand(checkout, argv)], { env: childEnv, stdio: ['pipe', 'pipe', node.length ? 'pipe' : 'inherit'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr?.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr, ms: performance.now() - started }));
    child.stdin.end(JSON.stringify(payload));
  });
}

async function loggedMs(root, event) {
  const lines = (await readFile(join(root, '.mem', 'hooks', 'log.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  return lines.filter((e) => e.event === event).map((e) => e.ms);
}

const work = await mkdtemp(join(os.tmpdir(), 'memdir-bench-hooks-'));
const personal = join(work, 'personal');
const personalFiles = (await generateCorpus(personal, 200, 7)).files;
const env = { ...process.env, HOME: work, MEM_PERSONAL_ROOT: personal, MEM_USER: USER, MEM_DAEMON: 'off' };
const startPayload = JSON.parse(await readFile(join(FIXTURES, 'claude-code-session-start.json'), 'utf8'));
const stopPayload = JSON.parse(await readFile(join(FIXTURES, 'claude-code-stop.json'), 'utf8'));
const promptPayload = JSON.parse(await readFile(join(FIXTURES, 'claude-code-user-prompt-submit.json'), 'utf8'));
const results = [];
try {
  for (const size of SIZES) {
    const project = join(work, `project-${size}`);
    const projectFiles = (await generateCorpus(join(project, 'memories'), size)).files;
    execFileSync('git', ['init', '-q', project]);
    const walls = [];
    const tokens = [];
    for (let i = 0; i < RUNS; i++) {
      const r = await runHook(['claude-code', 'session-start', '--user', USER], { ...startPayload, cwd: project }, env);
      if (r.code !== 0) throw new Error(`session-start exited ${r.code}`);
      walls.push(r.ms);
      // No output: the budget ended before any memory was read (the hook logs it).
      tokens.push(r.stdout.trim() ? Math.ceil(JSON.parse(r.stdout).hookSpecificOutput.additionalContext.length / 4) : 0);
    }
    const inProcess = await loggedMs(join(project, 'memories'), 'session-start');
    // A Stop hook with no transcript path: the hand-off is what is timed (the worker then logs a failure).
    const stops = [];
    for (let i = 0; i < RUNS; i++) {
      const r = await runHook(['claude-code', 'stop', '--user', USER], { ...stopPayload, cwd: project, transcript_path: undefined }, env);
      stops.push(r.ms);
    }
    results.push({ files: size, sessionStart: { wall: stats(walls), inProcess: stats(inProcess), contextTokens: stats(tokens) }, stopHandOff: stats(stops) });
    if (args.prompt) {
      // The search daemon's own servers, indexed from synthetic vectors: both roots the hook asks.
      const penv = await promptEnv(work, personal, USER);
      log(`${size} files: indexing the project and personal roots from synthetic vectors`);
      await indexWithSyntheticVectors(join(project, 'memories'), projectFiles, penv);
      await indexWithSyntheticVectors(personal, personalFiles, penv);
      const baseline = args.baseline ? resolve(args.baseline) : undefined;
      const runBaseline = baseline && ((argv, payload, env) => runHook(argv, payload, env, baseline));
      const cost = await promptRecallCost({
        project,
        root: join(project, 'memories'),
        runs: PROMPT_RUNS,
        coldRuns: COLD_RUNS,
        trace: args.trace,
        env: penv,
        payload: promptPayload,
        runHook,
        runBaseline,
        log,
      });
      results.at(-1).prompt = { ...cost, load: round(os.loadavg()[0], 2) };
    }
    if (!args.json) {
      const s = results.at(-1);
      console.log(
        `${size} files: session-start wall p50 ${s.sessionStart.wall.p50} ms p95 ${s.sessionStart.wall.p95} ms, in-process p50 ${s.sessionStart.inProcess.p50} ms p95 ${s.sessionStart.inProcess.p95} ms, context p50 ~${s.sessionStart.contextTokens.p50} tokens (min ${s.sessionStart.contextTokens.min}); stop hand-off p50 ${s.stopHandOff.p50} ms p95 ${s.stopHandOff.p95} ms`,
      );
      const p = s.prompt;
      if (p)
        console.log(
          `${size} files: prompt recall warm wall p50 ${p.warm.wall.p50} ms p95 ${p.warm.wall.p95} ms (in-process p50 ${p.warm.inProcess.p50} ms p95 ${p.warm.inProcess.p95} ms; node -e 0 p50 ${p.warm.nodeStartup.p50} ms; mem search -k 5 through the daemon p50 ${p.warm.memSearch.p50} ms p95 ${p.warm.memSearch.p95} ms), ~${p.warm.tokens.p50} tokens, ${p.warm.memories.p50} memories (${p.warm.promptsWithoutMemory}/${PROMPT_RUNS} prompts without); cold wall p50 ${p.cold.wall.p50} ms p95 ${p.cold.wall.p95} ms max ${p.cold.wall.max} ms (in-process max ${p.cold.inProcess.max} ms), memory in ${p.cold.promptsWithMemory}/${COLD_RUNS} cold prompts, servers up when it returned ${p.cold.serversUpWhenItReturned}/${COLD_RUNS}, memory again after p50 ${p.cold.warmUpSeconds.p50} s p95 ${p.cold.warmUpSeconds.p95} s (load ${p.load})`,
        );
      if (p?.trace) console.log(`${size} files: a warm prompt hook step by step (ms, p50 / p95): ${JSON.stringify(p.trace)}`);
      if (p?.baseline)
        console.log(
          `${size} files: baseline's prompt hook, alternated on the same daemon: warm wall p50 ${p.baseline.wall.p50} ms p95 ${p.baseline.wall.p95} ms (in-process p50 ${p.baseline.inProcess.p50} ms p95 ${p.baseline.inProcess.p95} ms); this tree / baseline: wall p50 ${p.baseline.ratio.p50} p95 ${p.baseline.ratio.p95}, same output ${p.baseline.sameOutput}/${PROMPT_RUNS}`,
        );
    }
  }
} finally {
  // The detached capture workers may still be logging their (expected) failure for a moment.
  if (!args.keep) await rm(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 300 });
}
const report = { machine: machine(), load: round(os.loadavg()[0], 2), runs: RUNS, results };
if (args.json) console.log(JSON.stringify(report, null, 2));
else console.log(`machine: ${report.machine.cpuModel} x${report.machine.cpuCount}, load average ${report.load}`);
