// Covers retrying held captures: each leftover captured and logged as its own run, hopeless ones dropped, the rest kept.
import { describe, expect, it } from 'vitest';

import { UsageError } from '../../../../src/errors.js';
import type { CaptureResult } from '../../../../src/services/capture/capture.js';
import type { HeldHookInput } from '../../../../src/services/capture/hook-protocol.js';
import { retryHeldCaptures } from '../../../../src/services/capture/retry-held.js';
import type { HookLogEntry, HookState } from '../../../../src/services/ports.js';

function fakeState(files: string[]) {
  const logged: HookLogEntry[] = [];
  const released: string[] = [];
  const asked: number[] = [];
  const state = {
    held: (ms: number) => (asked.push(ms), Promise.resolve(files)),
    release: (f: string) => (released.push(f), Promise.resolve()),
    log: (e: HookLogEntry) => (logged.push(e), Promise.resolve()),
  } as unknown as HookState;
  return { state, logged, released, asked };
}

const held = (user = 'ann'): HeldHookInput => ({ agent: 'codex', event: 'notify', user, payload: { 'thread-id': 't1' } });
const captured: CaptureResult = { turns: 2, redacted: 0, memories: 0, warnings: [], log: { id: 'l', path: 'memories/log.md', appended: true } };

describe('retryHeldCaptures', () => {
  it('captures every leftover but its own, logs each and releases it', async () => {
    const { state, logged, released, asked } = fakeState(['/h/own', '/h/a']);
    const users: string[] = [];
    const ports = { state, readHeld: () => Promise.resolve(held()), capture: (_h: HeldHookInput, u: string) => (users.push(u), Promise.resolve(captured)) };
    await retryHeldCaptures(ports, '/h/own');
    expect(asked).toEqual([60_000]);
    expect(users).toEqual(['ann']);
    expect(released).toEqual(['/h/a']);
    expect(logged).toEqual([
      expect.objectContaining({
        agent: 'codex',
        event: 'notify',
        session: 't1',
        ok: true,
        detail: 'retried an earlier capture: captured 2 turns into memories/log.md',
      }),
    ]);
  });

  it('skips an input another capture already took', async () => {
    const { state, logged, released } = fakeState(['/h/a']);
    await retryHeldCaptures({ state, readHeld: () => Promise.resolve(null), capture: () => Promise.reject(new Error('not called')) }, undefined);
    expect(logged).toEqual([]);
    expect(released).toEqual([]);
  });

  it('drops an input that can never be captured (a bad user, bad JSON), keeps one whose capture failed', async () => {
    const { state, logged, released } = fakeState(['/h/bad-user', '/h/bad-json', '/h/failed']);
    const readHeld = (f: string) =>
      f === '/h/bad-json' ? Promise.reject(new SyntaxError('Unexpected token')) : Promise.resolve(held(f === '/h/bad-user' ? '../x' : 'ann'));
    await retryHeldCaptures({ state, readHeld, capture: () => Promise.reject(new Error('the servers are down')) }, undefined);
    expect(released).toEqual(['/h/bad-user', '/h/bad-json']);
    expect(logged.map((e) => [e.ok, e.hint])).toEqual([
      [false, 'its input cannot be captured and was dropped'],
      [false, 'its input cannot be captured and was dropped'],
      [false, 'its input stays held and the next hook retries it'],
    ]);
    expect(logged[1]).toMatchObject({ agent: 'unknown', event: 'unknown', error: 'retrying an earlier capture: Unexpected token' });
    expect(logged[2]!.error).toBe('retrying an earlier capture: the servers are down');
  });

  it('treats a usage error from the capture as hopeless', async () => {
    const { state, released } = fakeState(['/h/a']);
    await retryHeldCaptures({ state, readHeld: () => Promise.resolve(held()), capture: () => Promise.reject(new UsageError('no transcript_path')) }, undefined);
    expect(released).toEqual(['/h/a']);
  });
});
