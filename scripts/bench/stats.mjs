// Shared by the benchmark scripts: latency statistics (nearest-rank percentiles) and machine facts. Measures nothing itself.
import os from 'node:os';

export const round = (n, d = 1) => (Number.isFinite(n) ? Math.round(n * 10 ** d) / 10 ** d : n);

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: round(percentile(s, 50)),
    p95: round(percentile(s, 95)),
    mean: round(s.reduce((a, b) => a + b, 0) / Math.max(1, s.length)),
    min: round(s[0]),
    max: round(s[s.length - 1]),
  };
}

export function machine() {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model?.trim() ?? 'unknown',
    cpuCount: cpus.length,
    totalMemoryGiB: round(os.totalmem() / 1024 ** 3, 1),
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    node: process.version,
  };
}
