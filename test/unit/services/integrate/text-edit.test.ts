// Covers the undoable edits of agents' configuration: marked blocks and JSON hook/server entries.
import { describe, expect, it } from 'vitest';

import {
  UnexpectedShape,
  withBlock,
  withEntries,
  withHooks,
  withoutBlock,
  withoutEntries,
  withoutHooks,
} from '../../../../src/services/integrate/text-edit.js';

const M = { begin: '# >>> x >>>', end: '# <<< x <<<' };
const ours = (c: string) => c.includes('mem hook');

describe('marked blocks', () => {
  it.each([
    ['', 'end'],
    ['a = 1\n', 'end'],
    ['a = 1\n\n', 'end'],
    ['[t]\nk = 2\n', 'start'],
    ['# title', 'start'],
  ] as const)('adding then removing a block gives back %j exactly (%s)', (text, at) => {
    const added = withBlock(text, 'notify = ["mem"]', M, at);
    expect(added).toContain('# >>> x >>>\nnotify = ["mem"]\n# <<< x <<<\n');
    expect(withBlock(added, 'notify = ["mem"]', M, at)).toBe(added);
    expect(withoutBlock(added, M)).toBe(text);
  });

  it('a file without a final newline gets one back (the install record restores such a file byte for byte)', () => {
    expect(withoutBlock(withBlock('a = 1', 'x', M), M)).toBe('a = 1\n');
  });

  it('a top block comes before the first table', () => {
    const added = withBlock('[mcp_servers.docs]\ncommand = "d"\n', 'notify = []', M, 'start');
    expect(added.indexOf('notify')).toBeLessThan(added.indexOf('[mcp_servers.docs]'));
  });
});

describe('JSON settings', () => {
  const settings = { permissions: { allow: ['Bash(ls)'] }, hooks: { Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }] } };

  it("adds hook groups beside the user's, replaces an older copy of ours, and removes only ours", () => {
    const spec = { event: 'Stop', hook: { type: 'command', command: 'node mem hook claude-code stop' } };
    const once = withHooks(
      settings,
      [spec, { event: 'SessionStart', matcher: 'startup', hook: { type: 'command', command: 'node mem hook claude-code session-start' } }],
      ours,
    );
    expect(
      withHooks(
        once,
        [spec, { event: 'SessionStart', matcher: 'startup', hook: { type: 'command', command: 'node mem hook claude-code session-start' } }],
        ours,
      ),
    ).toEqual(once);
    expect((once.hooks as Record<string, unknown[]>).Stop).toHaveLength(2);
    expect(withoutHooks(once, ours)).toEqual(settings);
    expect(withoutHooks({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'node mem hook x' }] }] } }, ours)).toEqual({});
  });

  it('adds and removes named entries', () => {
    const added = withEntries({ mcpServers: { git: { command: 'uvx' } } }, 'mcpServers', { memdir: { command: 'mem' } });
    expect(Object.keys(added.mcpServers as object)).toEqual(['git', 'memdir']);
    expect(withoutEntries(added, 'mcpServers', ['memdir'])).toEqual({ mcpServers: { git: { command: 'uvx' } } });
    expect(withoutEntries({ mcpServers: { memdir: {} }, a: 1 }, 'mcpServers', ['memdir'])).toEqual({ a: 1 });
  });

  it("never replaces a value of the person's that is in the way", () => {
    const spec = { event: 'Stop', hook: { type: 'command', command: 'node mem hook claude-code stop' } };
    expect(() => withHooks({ hooks: { Stop: { a: 1 } } }, [spec], ours)).toThrow(UnexpectedShape);
    expect(() => withHooks({ hooks: { Stop: { a: 1 } } }, [spec], ours)).toThrow('"hooks.Stop" is not a list of hook groups');
    expect(() => withHooks({ hooks: [] }, [spec], ours)).toThrow('"hooks" is not an object of events');
    expect(() => withEntries({ mcpServers: ['x'] }, 'mcpServers', {})).toThrow('"mcpServers" is not an object of named entries');
  });
});
