// Covers the agents' hook protocols as data: event kinds, input parsing, what an input names, the capture it asks for, the output.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { UsageError } from '../../../../src/errors.js';
import {
  additionalContext,
  captureSource,
  describeCapture,
  hookCwd,
  hookKind,
  hookPrompt,
  hookSession,
  parseHeldInput,
  parseHookPayload,
  unknownHookMessage,
} from '../../../../src/services/capture/hook-protocol.js';

const fixture = (name: string) => readFileSync(fileURLToPath(new URL(`../../../fixtures/agents/${name}`, import.meta.url)), 'utf8');
const payload = (name: string) => parseHookPayload(fixture(name));

describe('hookKind', () => {
  it('maps each agent event to session start, prompt or capture', () => {
    expect(hookKind('claude-code', 'session-start')).toBe('context');
    expect(hookKind('claude-code', 'prompt')).toBe('prompt');
    for (const e of ['stop', 'pre-compact', 'session-end']) expect(hookKind('claude-code', e)).toBe('capture');
    expect(hookKind('gemini', 'session-start')).toBe('context');
    expect(hookKind('gemini', 'after-agent')).toBe('capture');
    expect(hookKind('codex', 'notify')).toBe('capture');
  });

  it('knows no other event, and the error lists the known ones', () => {
    expect(hookKind('codex', 'prompt')).toBeUndefined();
    expect(hookKind('cursor', 'stop')).toBeUndefined();
    // Names every object has (a built-in function, its own properties) are no events and no agents.
    for (const e of ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf']) expect(hookKind('claude-code', e)).toBeUndefined();
    expect(hookKind('toString', 'name')).toBeUndefined();
    expect(hookKind('constructor', 'name')).toBeUndefined();
    expect(unknownHookMessage('codex', 'prompt')).toBe(
      'unknown hook codex prompt; known: claude-code (session-start, prompt, stop, pre-compact, session-end); gemini (session-start, after-agent); codex (notify)',
    );
  });
});

describe('parseHookPayload', () => {
  it('reads a JSON object; an empty input is an empty payload', () => {
    expect(payload('claude-code-stop.json')).toMatchObject({ hook_event_name: 'Stop' });
    expect(parseHookPayload('  \n')).toEqual({});
  });

  it('refuses bad JSON (a SyntaxError) and JSON that is not an object', () => {
    expect(() => parseHookPayload('{not json')).toThrow(SyntaxError);
    for (const text of ['[1]', 'null', '"text"', '3']) expect(() => parseHookPayload(text)).toThrow('the hook input is not a JSON object');
  });
});

describe('parseHeldInput', () => {
  it('reads what the hook held for the background capture', () => {
    const held = { agent: 'codex', event: 'notify', user: 'ann', payload: payload('codex-notify.json') };
    expect(parseHeldInput(JSON.stringify(held), '/h/1.json')).toEqual(held);
  });

  it('refuses a file that is not a held input, naming it, as a usage error', () => {
    const bad = JSON.stringify({ agent: 'codex', event: 'notify', user: 'ann', payload: null });
    expect(() => parseHeldInput(bad, '/h/2.json')).toThrow(UsageError);
    expect(() => parseHeldInput(bad, '/h/2.json')).toThrow('/h/2.json: not a held hook input');
    expect(() => parseHeldInput('{"agent":"codex"}', '/h/3.json')).toThrow('/h/3.json: not a held hook input');
  });
});

describe('what an input names', () => {
  it('the session (Codex calls it a thread), the folder and the prompt', () => {
    expect(hookSession(payload('claude-code-user-prompt-submit.json'))).toBe('7d9e1f3a-5b7c-4d9e-8f1a-3b5c7d9e1f02');
    expect(hookSession(payload('codex-notify.json'))).toBe('b5f3c2a1-0d9e-4c8b-a7f6-e5d4c3b2a190');
    expect(hookSession({ session_id: 's', 'thread-id': 't' })).toBe('s');
    expect(hookSession({ session_id: '' })).toBeUndefined();
    expect(hookCwd(payload('gemini-session-start.json'))).toBe('/home/ann/shop');
    expect(hookCwd({ cwd: 3 })).toBeUndefined();
    expect(hookPrompt(payload('claude-code-user-prompt-submit.json'))).toBe('Which package manager should I use to add lodash?');
    expect(hookPrompt(payload('claude-code-stop.json'))).toBeUndefined();
  });
});

describe('captureSource', () => {
  it("reads Claude Code's transcript, keyed by its session", () => {
    expect(captureSource('claude-code', 'stop', payload('claude-code-stop.json'))).toEqual({
      transcript: {
        key: 'claude-code:2f6b3d1e-8c4a-4f0e-9a51-0d7e6c1b9a01',
        transcriptPath: '/home/ann/.claude/projects/-home-ann-shop/2f6b3d1e-8c4a-4f0e-9a51-0d7e6c1b9a01.jsonl',
        source: 'claude-code:2f6b3d1e-8c4a-4f0e-9a51-0d7e6c1b9a01',
      },
    });
    expect(captureSource('claude-code', 'stop', { transcript_path: '/t.jsonl' })).toMatchObject({ transcript: { key: 'claude-code:unknown' } });
  });

  it('refuses a Claude Code input without its transcript as a usage error', () => {
    expect(() => captureSource('claude-code', 'pre-compact', { session_id: 's' })).toThrow(UsageError);
    expect(() => captureSource('claude-code', 'pre-compact', { session_id: 's' })).toThrow('the pre-compact hook input has no transcript_path');
  });

  it("takes Codex's and Gemini CLI's turns from the input itself", () => {
    const now = new Date('2026-12-01T09:00:00.000Z');
    const codex = captureSource('codex', 'notify', payload('codex-notify.json'));
    expect(codex).toMatchObject({ source: 'codex:b5f3c2a1-0d9e-4c8b-a7f6-e5d4c3b2a190' });
    expect('turnsAt' in codex && codex.turnsAt(now).map((t) => t.role)).toEqual(['user', 'assistant']);
    const gemini = captureSource('gemini', 'after-agent', payload('gemini-after-agent.json'));
    expect(gemini).toMatchObject({ source: 'gemini:e8d7c6b5-a4f3-4e2d-9c1b-0a9f8e7d6c01' });
    expect('turnsAt' in gemini && gemini.turnsAt(now)[1]!.content).toBe('Kept .github/workflows/ci.yml on Node 22 and pinned the setup-node action.');
    expect(captureSource('codex', 'notify', {})).toMatchObject({ source: 'codex:unknown' });
  });
});

describe('output', () => {
  it('answers with the context the agent adds to the model input', () => {
    expect(additionalContext('UserPromptSubmit', 'ctx')).toEqual({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'ctx' } });
  });

  it('describes a capture in one log line', () => {
    const none = { turns: 0, redacted: 0, memories: 0, warnings: [] };
    expect(describeCapture(none)).toBe('nothing new to capture');
    expect(describeCapture({ ...none, warnings: ['a', 'b'] })).toBe('nothing new to capture (a; b)');
    const log = { id: 'l', path: 'memories/log.md', appended: false };
    expect(describeCapture({ turns: 2, redacted: 1, memories: 3, warnings: [], log, extraction: 'done' })).toBe(
      'captured 2 turns into memories/log.md (already there); 1 secret(s) redacted; extraction done: 3 memories',
    );
    expect(describeCapture({ ...none, turns: 1, log: { ...log, appended: true, parts: ['a', 'b', 'c'] }, extraction: 'offline' })).toBe(
      'captured 1 turns into memories/log.md (and 2 more files: the day is over the file size limit)',
    );
  });
});
