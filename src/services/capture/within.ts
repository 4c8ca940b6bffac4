// A hook's time budget: work raced against a deadline, so a slow disk or cold server never holds up the agent.
export const TIMEOUT = Symbol('timeout');

/** The work's result, or TIMEOUT once `ms` have passed (the work goes on, unawaited). */
export function within<T>(ms: number, work: Promise<T>): Promise<T | typeof TIMEOUT> {
  if (!Number.isFinite(ms)) return work; // a timer cannot wait forever (Node would fire it at once)
  let timer: NodeJS.Timeout;
  const deadline = new Promise<typeof TIMEOUT>((resolve) => (timer = setTimeout(() => resolve(TIMEOUT), Math.max(0, ms))));
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
