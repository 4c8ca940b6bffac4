// Retrying the captures earlier hooks handed over but never finished (their worker failed or was killed):
// each held input is captured again and logged as its own run; one that can never be captured is dropped,
// any other stays held for the next hook.
import { UsageError, errorMessage } from '../../errors.js';
import { assertUserId } from '../../memory/ids.js';
import type { HookLogEntry, HookState } from '../ports.js';
import type { CaptureResult } from './capture.js';
import { describeCapture, hookSession, type HeldHookInput } from './hook-protocol.js';

// A held input this old belongs to a capture that failed or was killed, not to one still running.
const LEFTOVER_MS = 60_000;

export interface RetryPorts {
  state: HookState;
  /** A held input, or null when another capture already took it (and released it). */
  readHeld(file: string): Promise<HeldHookInput | null>;
  /** Captures a held input's turns, for the user it names. */
  capture(held: HeldHookInput, user: string): Promise<CaptureResult>;
}

/** Captures the inputs earlier hooks left held, all but `own` (the input this worker was started for). */
export async function retryHeldCaptures(ports: RetryPorts, own: string | undefined): Promise<void> {
  const { state } = ports;
  for (const file of await state.held(LEFTOVER_MS)) {
    if (file === own) continue;
    const started = Date.now();
    const entry: HookLogEntry = { at: new Date().toISOString(), agent: 'unknown', event: 'unknown', ok: true, ms: 0 };
    let release = true;
    try {
      const held = await ports.readHeld(file);
      if (!held) continue;
      Object.assign(entry, { agent: held.agent, event: held.event });
      const session = hookSession(held.payload);
      if (session) entry.session = session;
      const result = await ports.capture(held, assertUserId(held.user));
      entry.detail = `retried an earlier capture: ${describeCapture(result)}`;
    } catch (err) {
      entry.ok = false;
      entry.error = `retrying an earlier capture: ${errorMessage(err)}`;
      release = err instanceof UsageError || err instanceof SyntaxError;
      entry.hint = release ? 'its input cannot be captured and was dropped' : 'its input stays held and the next hook retries it';
    }
    if (release) await state.release(file);
    entry.ms = Date.now() - started;
    await state.log(entry).catch(() => undefined);
  }
}
