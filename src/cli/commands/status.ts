// `mem status`: files, index and drift between them, plus the managed servers.
import { openHookState } from '../../open-memory.js';
import { localServerStatus } from '../../server-control.js';
import { describeHookProblem, hookHealth } from '../../services/capture/hook-health.js';
import { configFrom, withMemory } from '../context.js';
import { daemonState } from '../daemon-state.js';
import type { GlobalOptions, Io } from '../io.js';

/** Invalid files named in the text output; `--json` holds every one. */
const MAX_INVALID_SHOWN = 20;

export async function statusCommand(opts: GlobalOptions, io: Io): Promise<void> {
  const report = await withMemory(opts, io, (memory) => memory.status());
  const config = configFrom(opts);
  const servers = await localServerStatus(config);
  // The search daemon too, as `mem server status` lists it: whether this root's searches are answered warm.
  const { daemon } = await daemonState(config);
  const hooks = hookHealth(await (await openHookState(config)).entries(), new Date());
  io.result({ ...report, servers: servers.servers, daemon, ...(hooks.runs > 0 ? { hooks } : {}) }, () => {
    const lines = [
      `root:      ${report.root}`,
      `index:     ${report.index}`,
      `embedding: ${report.embedding}`,
      `files: ${report.files}, chunks: ${report.chunks}, index rows: ${report.indexRows}`,
    ];
    for (const [user, u] of Object.entries(report.users)) {
      const types = Object.entries(u.byType)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
      const statuses = Object.entries(u.byStatus)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
      lines.push(`  ${user}: ${u.memories} memories (${types}; ${statuses})`);
    }
    const d = report.drift;
    lines.push(
      d.inSync
        ? 'in sync'
        : `drift: ${d.unindexed.length} unindexed, ${d.changed.length} changed, ${d.deleted.length} deleted${d.unchecked.length ? `, ${d.unchecked.length} more changed since the last sync, not checked` : ''}${d.rowsMismatch ? ', row count differs' : ''}; run \`mem reindex\` (it indexes what it can and names each file it refuses)`,
    );
    // A screenful, not thousands of lines: the rest are in --json and in `mem doctor`.
    for (const f of d.invalid.slice(0, MAX_INVALID_SHOWN)) lines.push(`invalid (not indexed; fix the file): ${f.path}:${f.line}: ${f.message}`);
    if (d.invalid.length > MAX_INVALID_SHOWN) {
      lines.push(`invalid: ${d.invalid.length - MAX_INVALID_SHOWN} more (\`mem status --json\` or \`mem doctor\` lists every one)`);
    }
    for (const s of servers.servers) lines.push(`server ${s.name}: ${s.running ? `running (pid ${s.pid}, port ${s.port})` : 'stopped'}`);
    const thisRoot = daemon.roots?.includes(config.root) ? 'this root open' : 'this root not open';
    lines.push(`search daemon memd: ${daemon.running ? `running (pid ${daemon.pid}, ${thisRoot})` : 'not running'}`);
    if (hooks.runs > 0) {
      lines.push(`agent hooks: ${hooks.runs} runs in 7 days, ${hooks.problemCount} failed or fell back${hooks.problemCount ? ':' : ''}`);
      for (const p of hooks.problems) lines.push(`  ${describeHookProblem(p)}`);
    }
    return lines.join('\n');
  });
}
