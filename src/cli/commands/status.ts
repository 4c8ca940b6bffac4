// `mem status`: files, index and drift between them, plus the managed servers.
import { localServerStatus } from '../../server-control.js';
import { configFrom, withMemory } from '../context.js';
import type { GlobalOptions, Io } from '../io.js';

export async function statusCommand(opts: GlobalOptions, io: Io): Promise<void> {
  const report = await withMemory(opts, io, (memory) => memory.status());
  const servers = await localServerStatus(configFrom(opts));
  io.result({ ...report, servers: servers.servers }, () => {
    const lines = [
      `root:      ${report.root}`,
      `index:     ${report.index}`,
      `embedding: ${report.embedding}`,
      `files: ${report.files}, chunks: ${report.chunks}, index rows: ${report.indexRows}`,
    ];
    for (const [user, u] of Object.entries(report.users)) {
      const types = Object.entries(u.byType).map(([k, v]) => `${k} ${v}`).join(', ');
      const statuses = Object.entries(u.byStatus).map(([k, v]) => `${k} ${v}`).join(', ');
      lines.push(`  ${user}: ${u.memories} memories (${types}; ${statuses})`);
    }
    const d = report.drift;
    lines.push(d.inSync ? 'in sync' : `drift: ${d.unindexed.length} unindexed, ${d.changed.length} changed, ${d.deleted.length} deleted${d.rowsMismatch ? ', row count differs' : ''}; run \`mem reindex\``);
    for (const s of servers.servers) lines.push(`server ${s.name}: ${s.running ? `running (pid ${s.pid}, port ${s.port})` : 'stopped'}`);
    return lines.join('\n');
  });
}
