// Covers in-place JSON edits: comments and layout kept, and adding then removing memdir's entries gives the file back.
import { describe, expect, it } from 'vitest';

import { editJson, lineOf, parseJsonObject } from '../../../../src/services/integrate/json-edit.js';
import { withEntries, withHooks, withoutEntries, withoutHooks } from '../../../../src/services/integrate/text-edit.js';

const ours = (c: string) => c.includes('mem hook');
const hooks = [
  { event: 'SessionStart', matcher: 'startup', hook: { type: 'command', command: 'node mem hook x session-start' } },
  { event: 'Stop', hook: { type: 'command', command: 'node mem hook x stop' } },
];
const servers = { 'memdir-project': { command: 'node', args: ['mem', 'mcp'] } };

const install = (text: string) => editJson(text, withEntries(withHooks(parseJsonObject(text, 's.json'), hooks, ours), 'mcpServers', servers));
const uninstall = (text: string) => editJson(text, withoutEntries(withoutHooks(parseJsonObject(text, 's.json'), ours), 'mcpServers', ['memdir-project']));

describe('editJson', () => {
  it.each([
    ['two spaces', '{\n  "model": "opus"\n}\n'],
    ['four spaces, no final newline', '{\n    "permissions": {\n        "allow": ["Bash(ls)"]\n    }\n}'],
    ['tabs and CRLF', '{\r\n\t"a": 1\r\n}\r\n'],
    ['one line', '{"theme":"Dracula","mcpServers":{"git":{"command":"uvx","args":["mcp-server-git"]}}}'],
    ['one line with spaces', '{"model": "opus"}'],
    [
      'comments',
      '{\n  // the theme I like\n  "theme": "Dracula", /* trailing */\n  "hooks": {\n    "Stop": [ { "hooks": [ { "type": "command", "command": "say done" } ] } ]\n  }\n}\n',
    ],
    ['empty servers of its own', '{\n  "mcpServers": {\n    "git": { "command": "uvx" }\n  }\n}\n'],
  ])('adding then removing gives back %s byte for byte', (_name, text) => {
    const added = install(text);
    expect(parseJsonObject(added, 's.json').mcpServers).toMatchObject(servers);
    expect(install(added)).toBe(added);
    expect(uninstall(added)).toBe(text);
  });

  it('keeps comments through an install', () => {
    const text = '{\n  // the theme I like\n  "theme": "Dracula"\n}\n';
    expect(install(text)).toContain('// the theme I like');
  });

  it('a blank or missing file becomes a two-space JSON file', () => {
    expect(editJson(null, { a: 1 })).toBe('{\n  "a": 1\n}\n');
  });

  it('reports a broken file and a value by line', () => {
    expect(() => parseJsonObject('{\n "a": 1,,\n}', '/s.json')).toThrow(/^\/s\.json:2: not valid JSON/);
    expect(() => parseJsonObject('[1]', '/s.json')).toThrow('/s.json:1: expected a JSON object');
    expect(lineOf('{\n  "hooks": {\n    "Stop": {"a": 1}\n  }\n}', ['hooks', 'Stop'])).toBe(3);
  });
});
