// Covers which command lines the prompt hook's fast path takes: the one `mem integrate` writes, and nothing else.
import { describe, expect, it } from 'vitest';

import { parsePromptHookArgs } from '../../../src/cli/fast-prompt-hook.js';

describe('parsePromptHookArgs', () => {
  it('takes `hook claude-code prompt` with or without its user, as commander hands the options over', () => {
    expect(parsePromptHookArgs(['hook', 'claude-code', 'prompt', '--user', 'ann'])).toEqual({ user: 'ann' });
    expect(parsePromptHookArgs(['hook', 'claude-code', 'prompt', '-u', 'ann'])).toEqual({ user: 'ann' });
    expect(parsePromptHookArgs(['hook', 'claude-code', 'prompt'])).toEqual({});
  });

  it('leaves every other command line to the full CLI', () => {
    for (const args of [
      ['hook', 'claude-code', 'stop', '--user', 'ann'],
      ['hook', 'gemini', 'prompt'],
      ['--root', 'x', 'hook', 'claude-code', 'prompt'],
      ['hook', 'claude-code', 'prompt', '--user'],
      ['hook', 'claude-code', 'prompt', '--user', '--foreground'],
      ['hook', 'claude-code', 'prompt', '--user=ann'],
      ['hook', 'claude-code', 'prompt', '--user', 'ann', '--json'],
      ['hook', 'claude-code', 'prompt', '{"prompt":"hi"}'],
      ['hook', 'claude-code', 'prompt', '--help'],
    ])
      expect(parsePromptHookArgs(args), args.join(' ')).toBeNull();
  });
});
