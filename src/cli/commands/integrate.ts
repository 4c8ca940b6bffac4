// `mem integrate <agent>`: installs memdir into a coding agent (hooks, MCP servers, instructions),
// idempotently, printing each file it wrote; `--uninstall` takes out exactly that.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { agentConfigFromEnvironment } from '../../config.js';
import { UsageError } from '../../errors.js';
import { assertUserId } from '../../memory/ids.js';
import { AGENTS, type AgentName } from '../../services/integrate/agents.js';
import type { IntegrateResult } from '../../services/integrate/integrate.js';
import type { GlobalOptions, Io } from '../io.js';

const MEM_BIN = fileURLToPath(new URL('../../../bin/mem.js', import.meta.url));
const LAUNCHER = fileURLToPath(new URL('../../../bin/mem', import.meta.url));

export interface IntegrateOptions extends GlobalOptions {
  scope: 'project' | 'user';
  uninstall?: boolean;
  promptRecall?: boolean;
  user?: string;
  dir?: string;
}

const ALIASES: Record<string, AgentName> = { claude: 'claude-code', 'claude-code': 'claude-code', codex: 'codex', gemini: 'gemini', 'gemini-cli': 'gemini' };

function describe(r: IntegrateResult): string {
  const head = r.action === 'install' ? `memdir in ${r.agent} (${r.scope} scope):` : `memdir out of ${r.agent} (${r.scope} scope):`;
  const width = Math.max(...r.files.map((f) => f.action.length));
  const lines = r.files.map((f) => `  ${f.action.padEnd(width)}  ${f.path}  (${f.what})`);
  const changed = r.files.some((f) => !['unchanged', 'absent'].includes(f.action));
  for (const w of r.warnings ?? []) lines.push(`  warning: ${w}`);
  if (!changed) lines.push(r.action === 'install' ? '  already installed: nothing to change' : '  nothing to remove');
  else if (r.action === 'install') lines.push(`  restart ${r.agent} to load it; \`mem integrate ${r.agent} --scope ${r.scope} --uninstall\` removes it`);
  return [head, ...lines].join('\n');
}

export async function integrateCommand(agentName: string, opts: IntegrateOptions, io: Io): Promise<void> {
  const agent = ALIASES[agentName];
  if (!agent) throw new UsageError(`unknown agent ${JSON.stringify(agentName)}: use one of ${AGENTS.join(', ')}`);
  // Undefined unless one of the two flags was given: commander leaves it so when both --prompt-recall and --no-prompt-recall exist.
  if (opts.promptRecall !== undefined && agent !== 'claude-code') {
    throw new UsageError('--prompt-recall and --no-prompt-recall are for claude-code (the only agent here with a per-prompt hook)');
  }
  const agentConfig = agentConfigFromEnvironment();
  const user = assertUserId(opts.user ?? agentConfig.user);
  // A mistyped --dir must not become a new folder holding agent settings.
  if (opts.dir !== undefined && !(await stat(opts.dir).catch(() => undefined))?.isDirectory()) {
    throw new UsageError(`--dir ${resolve(opts.dir)}: no such folder`);
  }
  const { openTextFiles, projectMemoryRoot, setUpMergeDriver } = await import('../../open-memory.js');
  const { root: projectRoot, project } = await projectMemoryRoot(opts.dir ?? process.cwd());
  const { integrateAgent } = await import('../../services/integrate/integrate.js');
  const result = await integrateAgent(await openTextFiles(), {
    agent,
    scope: opts.scope,
    home: agentConfig.home,
    projectDir: project.worktree,
    mem: [process.execPath, MEM_BIN],
    launcher: LAUNCHER,
    user,
    personalRoot: agentConfig.personalRoot,
    // On by default for Claude Code: a warm prompt costs ~0.2 s and a cold one never waits for the servers (docs/performance.md).
    promptRecall: agent === 'claude-code' && opts.promptRecall !== false,
    stateRoot: opts.scope === 'project' ? projectRoot : agentConfig.personalRoot,
    ...(opts.uninstall ? { uninstall: true } : {}),
  });
  // The memory it points the agent at merges by memdir's rules from now on (a no-op outside a git repository).
  if (!opts.uninstall) await setUpMergeDriver(opts.scope === 'project' ? projectRoot : agentConfig.personalRoot, (line) => io.note(line));
  io.result(result, () => describe(result));
}
