// `mem hook <agent> <event>`: what a coding agent's hooks run. Never in the agent's way: each event
// has a time budget (2 s at session start, 1 s per prompt; capture hands its work to a detached
// process and returns, within 10 s at worst), falls back to less when the servers are cold, prints only what the
// agent's hook protocol reads, and always exits 0. Every failure or fallback is logged under the
// project memory's `.mem/hooks/` for `mem status` and `mem doctor`. The detached capture gets its
// input from an owner-only file (never its command line, which `ps` shows every local account); the
// file stays until that capture succeeds, so a later hook retries one that failed or was killed.
import { existsSync, mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

import { agentConfigFromEnvironment, configFromEnvironment, inheritedEnvironment, type AgentConfig } from '../../config.js';
import { UsageError, errorMessage } from '../../errors.js';
import { assertUserId } from '../../memory/ids.js';
import type { StateLayout } from '../../memory/layout.js';
import {
  captureSource,
  describeCapture,
  hookCwd,
  hookKind,
  type HookKind,
  type HookOutcome,
  hookPrompt,
  hookSession,
  parseHeldInput,
  parseHookPayload,
  unknownHookMessage,
  type HeldHookInput,
  type HookPayload as Payload,
} from '../../services/capture/hook-protocol.js';
import { retryHeldCaptures } from '../../services/capture/retry-held.js';
import { TIMEOUT, within } from '../../services/capture/within.js';
import type { CapturePorts, CaptureResult } from '../../services/capture/capture.js';
import type { AddInput } from '../../services/add.js';
import type { Memory } from '../../services/facade.js';
import type { HookLogEntry, HookState } from '../../services/ports.js';
import type { BlockWanted, RecallAnswer } from '../../services/capture/prompt-recall.js';
import type { SearchResult } from '../../services/search.js';
import type { GlobalOptions, Io } from '../io.js';

export interface HookOptions extends GlobalOptions {
  user?: string;
  /** The background capture's input: a file the hook wrote (owner-only), not a command-line argument. */
  payloadFile?: string;
  foreground?: boolean;
}

/** A held input, or null when another capture already took it (and released it). */
async function readHeld(file: string): Promise<HeldHookInput | null> {
  const text = await readFile(file, 'utf8').catch(() => null);
  return text === null ? null : parseHeldInput(text, file);
}

/** The hook's JSON input: an argument (Codex's notify), a held file (the background capture), or stdin. */
async function readPayload(arg: string | undefined, opts: HookOptions, ms: number): Promise<Payload> {
  if (opts.payloadFile) {
    const held = await readHeld(opts.payloadFile);
    if (!held) throw new UsageError('the held hook input is gone: another capture took it');
    return held.payload;
  }
  let text = arg;
  if (text === undefined) {
    if (process.stdin.isTTY) return {};
    const chunks: Buffer[] = [];
    const read = new Promise<void>((resolve) => {
      process.stdin.on('data', (c: Buffer) => chunks.push(c));
      process.stdin.on('end', resolve);
      process.stdin.on('error', () => resolve());
    });
    await within(ms, read);
    process.stdin.pause();
    text = Buffer.concat(chunks).toString('utf8');
  }
  return parseHookPayload(text);
}

interface Where {
  projectRoot: string;
  projectName: string;
  state: HookState;
  /** The root's state folder as configured: `.mem/`, or under the runtime home for a read-only root. */
  layout: StateLayout;
  /**
   * Why there is no project memory (the folder is not in an existing git work tree): the hook then reads
   * personal memory alone, captures nothing, and logs this in personal memory (projectRoot is that root).
   */
  noProject?: string;
}

async function where(payload: Payload, personalRoot: string): Promise<Where> {
  // The light doors, not open-memory.ts: a hook that never opens a root must not load the steps of opening one.
  const [{ projectMemoryRoot, openHookState }, { stateLayoutOf }] = await Promise.all([import('../../open/light.js'), import('../../open/state.js')]);
  const cwd = hookCwd(payload) ?? process.cwd();
  const { root, project } = await projectMemoryRoot(cwd);
  // A hook may be pointed anywhere (a deleted folder, $HOME, /tmp): making `memories/` there would plant a
  // repository of the conversation in a folder nobody chose for it.
  const noProject = project.inWorkTree ? undefined : `${JSON.stringify(cwd)} is not in a git work tree: no project memory`;
  const config = configFromEnvironment({ root: noProject ? personalRoot : root });
  return {
    projectRoot: config.root,
    projectName: project.name,
    state: await openHookState(config),
    layout: stateLayoutOf(config),
    ...(noProject ? { noProject } : {}),
  };
}

/** Session start: the project's and the person's memories, read from the files (no servers needed). */
async function context(w: Where, agentConfig: AgentConfig, user: string, ms: number): Promise<HookOutcome> {
  const { openMemoryFiles } = await import('../../open-memory.js');
  const { sessionStartContext } = await import('../../services/capture/session-start.js');
  return sessionStartContext(openMemoryFiles, {
    projectRoot: w.projectRoot,
    projectName: w.projectName,
    ...(w.noProject ? { noProject: w.noProject } : {}),
    personalRoot: agentConfig.personalRoot,
    defaultUser: configFromEnvironment({ root: w.projectRoot }).defaultOwner,
    user,
    contextTokens: agentConfig.contextTokens,
    ms,
  });
}

/** The search daemon's answer for a root (with its context block rendered there), or null when it did not answer (a cold root). */
async function askRoot(root: string, query: string, user: string, wait: number, block: BlockWanted): Promise<RecallAnswer | null> {
  const { askDaemon } = await import('../../adapters/daemon/client.js');
  const response = await askDaemon(configFromEnvironment({ root }), 'search', { query, user, k: 5, context: block }, wait);
  if (!response?.ok) return null;
  return { results: response.results as SearchResult[], ...(typeof response.context === 'string' ? { block: response.context } : {}) };
}

/**
 * The person's memory needs no git: a prompt's question to it goes out while the project is being found, and the
 * recall takes this answer instead of asking again. Undefined when the recall will ask nothing.
 */
function askPersonalEarly(payload: Payload, agentConfig: AgentConfig, user: string, ms: number): Promise<RecallAnswer | null> | undefined {
  const query = hookPrompt(payload);
  if (!query || !agentConfig.daemon) return undefined;
  const wait = Math.max(1, Math.round(ms));
  const root = agentConfig.personalRoot;
  // A personal root with no memory is not asked (the recall then leaves it out too).
  const answer = Promise.all([import('../../open/light.js'), import('../../services/capture/prompt-recall.js')]).then(([light, { blockWanted }]) =>
    light.rootMayHoldMemories(root) ? askRoot(root, query, user, wait, blockWanted('personal', agentConfig.promptTokens)) : null,
  );
  answer.catch(() => undefined); // the recall awaits it and reports its error; until then it must not count as unhandled
  return answer;
}

/** A prompt: the search daemon answers for both roots within the budget, or the prompt goes without. */
async function prompt(
  payload: Payload,
  w: Where,
  agentConfig: AgentConfig,
  user: string,
  ms: number,
  early?: Promise<RecallAnswer | null>,
): Promise<HookOutcome> {
  const query = hookPrompt(payload);
  if (!query) return { detail: 'no prompt in the input' };
  if (!agentConfig.daemon) return { error: 'MEM_DAEMON=off: prompt recall needs the search daemon, so it was skipped', hint: 'unset MEM_DAEMON to enable it' };
  const { startDaemon } = await import('../../adapters/daemon/client.js');
  const { promptRecall } = await import('../../services/capture/prompt-recall.js');
  const { rootMayHoldMemories } = await import('../../open/light.js');
  let asked = early;
  const ports = {
    ask: (root: string, q: string, u: string, wait: number, block: BlockWanted) => {
      if (asked && root === agentConfig.personalRoot) {
        const answer = asked;
        asked = undefined; // the same root asked twice (no project memory of its own) gets a second answer
        return answer;
      }
      return askRoot(root, q, u, wait, block);
    },
    mayHoldMemories: (root: string) => rootMayHoldMemories(root),
    // Warm for the next prompt (a second daemon started at once just exits); recorded for `mem server stop`.
    warm: async (root: string) => {
      const config = configFromEnvironment({ root });
      const started = startDaemon(config);
      if (started) await (await import('../../server-control.js')).recordDaemonStart(config, started.pid, started.socket).catch(() => undefined);
    },
  };
  return promptRecall(ports, {
    query,
    user,
    projectRoot: w.projectRoot,
    ...(w.noProject ? { noProject: w.noProject } : {}),
    personalRoot: agentConfig.personalRoot,
    promptTokens: agentConfig.promptTokens,
    ms,
  });
}

/** Capture in this process (the detached worker): the new turns into the project's memory. */
async function captureNow(agent: string, event: string, payload: Payload, w: Where, user: string, personalRoot: string, io: Io): Promise<CaptureResult> {
  const { openMemory, openTextFiles, openTurnLedger } = await import('../../open-memory.js');
  const { withMemory } = await import('../context.js');
  const capture = await import('../../services/capture/capture.js');
  // Opened only if the model extracts a preference: those belong to the person, not the project.
  let personal: Promise<Memory> | undefined;
  const addPersonal = (input: AddInput) =>
    (personal ??= openMemory(configFromEnvironment({ root: personalRoot }), { onLog: (l) => io.note(l) })).then((m) => m.add(input));
  // Checked before the memory is opened: a bad input must not start any server.
  const from = captureSource(agent, event, payload);
  return withMemory({ root: w.projectRoot }, io, async (memory) => {
    const ports: CapturePorts = {
      state: w.state,
      files: await openTextFiles(),
      ledger: await openTurnLedger(configFromEnvironment({ root: w.projectRoot })),
      ingest: (input) => memory.ingest(input),
      ...(personalRoot !== w.projectRoot ? { addPersonal } : {}),
    };
    if ('transcript' in from) return capture.captureTranscript(ports, { ...from.transcript, user, belongsHere: (cwd) => saidInProject(cwd, w.projectRoot) });
    return capture.captureTurns(ports, { user, source: from.source, turns: from.turnsAt(new Date()) });
  }).finally(async () => {
    await (await personal?.catch(() => undefined))?.close();
  });
}

/**
 * Whether a transcript line said in `cwd` belongs to this project memory: a folder that is gone (or a recorded path
 * from another machine) cannot say otherwise and counts as here; one in another repository does not.
 */
async function saidInProject(cwd: string, projectRoot: string): Promise<boolean> {
  if (!existsSync(cwd)) return true;
  const { projectMemoryRoot } = await import('../../open-memory.js');
  return (await projectMemoryRoot(cwd).catch(() => ({ root: projectRoot }))).root === projectRoot;
}

/** Hands the capture to a detached process, so the agent never waits for the servers or a model. */
async function captureLater(agent: string, event: string, payload: Payload, w: Where, user: string): Promise<void> {
  // Beside the hook log (w.state): a read-only root has its state under the runtime home, not in `<root>/.mem`.
  const layout = w.layout;
  mkdirSync(layout.hooks, { recursive: true });
  const held: HeldHookInput = { agent, event, user, payload };
  const file = await w.state.hold(JSON.stringify(held));
  const { startCaptureWorker } = await import('../../open-memory.js');
  await startCaptureWorker({ agent, event, user, heldFile: file, outputFile: layout.captureOutput, env: inheritedEnvironment() });
}

/**
 * A prompt's recall starts loading its modules at once, so that the loading overlaps the wait for the input instead
 * of following it: the ones that find the project first, since its question to the daemon waits for git. A failure
 * here is the later import's to report.
 */
function preloadRecall(): void {
  const ignore = () => undefined;
  import('../../open/light.js').then((light) => light.prepareFindProject()).catch(ignore);
  import('../../open/state.js').catch(ignore);
  import('../../adapters/daemon/client.js').catch(ignore);
  import('../../services/capture/prompt-recall.js').catch(ignore);
}

/** Whatever goes wrong after the hook has answered (a late socket or child error), the agent sees exit 0. */
function neverFail(io: Io): void {
  const quit = (err: unknown) => {
    io.note(`mem hook: ${errorMessage(err)}`);
    process.exit(0);
  };
  process.on('uncaughtException', quit);
  process.on('unhandledRejection', quit);
}

export async function hookCommand(agent: string, event: string, payloadArg: string | undefined, opts: HookOptions, io: Io): Promise<void> {
  const started = Date.now();
  neverFail(io);
  const kind = hookKind(agent, event);
  if (kind === 'prompt') preloadRecall();
  const entry: HookLogEntry = { at: new Date().toISOString(), agent, event, ok: true, ms: 0 };
  let located: Promise<Where> | undefined;
  // Read before anything else, so the budget covers the whole hook; a bad setting is caught below.
  let agentConfig: AgentConfig | undefined;
  try {
    agentConfig = agentConfigFromEnvironment();
  } catch {
    agentConfig = undefined;
  }
  // Capture's part is only the hand-over (the input into a held file, the worker started): cut short on a busy
  // machine, it would lose the turns, so it gets longer than it needs before giving up.
  const budgets: Record<HookKind, number> = { context: agentConfig?.startBudgetMs ?? 2000, prompt: agentConfig?.promptBudgetMs ?? 1000, capture: 10_000 };
  const budget = opts.foreground || !kind ? Number.POSITIVE_INFINITY : budgets[kind];
  const left = () => budget - (Date.now() - started);

  const run = async (): Promise<HookOutcome | undefined> => {
    if (!kind) throw new Error(unknownHookMessage(agent, event));
    if (!agentConfig) agentConfig = agentConfigFromEnvironment(); // throws the configuration error
    const user = assertUserId(opts.user ?? agentConfig.user);
    const payload = await readPayload(payloadArg, opts, Math.min(500, left()));
    const session = hookSession(payload);
    if (session) entry.session = session;
    located = where(payload, agentConfig.personalRoot);
    const early = kind === 'prompt' ? askPersonalEarly(payload, agentConfig, user, left()) : undefined;
    const w = await located;
    if (kind === 'context') return context(w, agentConfig, user, left());
    if (kind === 'prompt') return prompt(payload, w, agentConfig, user, left(), early);
    if (w.noProject) return { detail: `${w.noProject}: nothing captured (\`git init\` there gives the folder one)` };
    if (!opts.foreground) {
      await captureLater(agent, event, payload, w, user);
      return undefined; // the worker logs the outcome
    }
    const detail = describeCapture(await captureNow(agent, event, payload, w, user, agentConfig.personalRoot, io));
    if (opts.payloadFile) await w.state.release(opts.payloadFile);
    return { detail };
  };

  let w: Where | undefined;
  // Where to log, if it is known by now (a hook cut short by its budget may not have got that far).
  const whereNow = async () => {
    const got = located
      ? await within(
          300,
          located.catch(() => undefined),
        )
      : undefined;
    return got === TIMEOUT ? undefined : got;
  };
  try {
    // The whole hook, start-up included, within the budget: late work is abandoned, the agent goes on.
    const outcome = await within(left(), run());
    w = await whereNow();
    if (outcome === undefined) return;
    if (outcome === TIMEOUT && kind === 'capture') {
      entry.ok = false;
      entry.error = `the capture was not handed over within ${budget} ms (a very busy machine): its turns wait for a later hook`;
      entry.hint = 'the next hook of the session captures them (an input already held, after a minute); `mem doctor` shows whether it did';
    } else if (outcome === TIMEOUT) {
      entry.error = `no answer within the ${budget} ms budget (a busy machine or a large memory root): the agent went on without memory this time`;
      entry.hint = "nothing to do if it is rare; `mem status` shows the root's size, MEM_HOOK_START_MS / MEM_HOOK_PROMPT_MS set the budgets";
    } else {
      if (outcome.output !== undefined) process.stdout.write(`${JSON.stringify(outcome.output)}\n`);
      if (outcome.detail) entry.detail = outcome.detail;
      if (outcome.error) entry.error = outcome.error;
      if (outcome.hint) entry.hint = outcome.hint;
    }
  } catch (err) {
    w = await whereNow();
    entry.ok = false;
    entry.error = errorMessage(err);
    const root = w?.projectRoot ?? '<project>/memories';
    // An input that can never be captured is not kept for a retry (a transcript's turns are still read by the next hook).
    const hopeless = err instanceof UsageError || err instanceof SyntaxError;
    if (hopeless && opts.payloadFile && w) await w.state.release(opts.payloadFile).catch(() => undefined);
    entry.hint =
      kind === 'capture'
        ? `the turns stay uncaptured and the next hook retries them; check \`mem status --root ${root}\` and \`mem doctor\``
        : `run \`mem doctor --root ${root}\`; the agent went on without memory`;
    if (opts.foreground) io.note(`mem hook: ${entry.error}`);
  }
  entry.ms = Date.now() - started;
  // Logging is best effort too, and brief: a hook never fails or holds up the agent.
  if (w)
    await within(
      300,
      w.state.log(entry).catch(() => undefined),
    );
  // The background capture, done with its own input, finishes what earlier ones left.
  if (w && kind === 'capture' && opts.foreground && agentConfig) {
    const { personalRoot } = agentConfig;
    const ports = {
      state: w.state,
      readHeld,
      capture: (h: HeldHookInput, user: string) => captureNow(h.agent, h.event, h.payload, w!, user, personalRoot, io),
    };
    await retryHeldCaptures(ports, opts.payloadFile).catch(() => undefined);
  }
}
