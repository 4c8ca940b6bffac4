// Tells a recorded server process from another process that was given its pid after it exited: on Linux by the start
// time the kernel keeps for each process (/proc/<pid>/stat), elsewhere a live pid is taken to be the server.
import { readFileSync } from 'node:fs';

import { isAlive } from '../state/process-alive.js';

/** The process's start time (clock ticks after boot) as the kernel reports it, or undefined where there is no /proc. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (the command name, in parentheses) may hold spaces: count the fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19]; // field 22, starttime
  } catch {
    return undefined;
  }
}

/** Whether `pid` still runs and is the process that was recorded with `startTime` (when one was recorded). */
export function isSameProcess(pid: number, startTime: string | undefined): boolean {
  if (!isAlive(pid)) return false;
  if (startTime === undefined) return true;
  const now = processStartTime(pid);
  return now === undefined || now === startTime;
}
