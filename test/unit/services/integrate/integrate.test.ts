// Covers the install/uninstall use case on an in-memory file system: idempotent, byte-for-byte undo,
// created files and folders removed, later edits kept, a file that does not parse changes nothing.
import { dirname } from 'node:path';

import { describe, expect, it } from 'vitest';

import { integrateAgent, type IntegrateInput } from '../../../../src/services/integrate/integrate.js';
import type { TextFiles } from '../../../../src/services/ports.js';

class MemoryTextFiles implements TextFiles {
  files = new Map<string, string>();
  dirs = new Set<string>(['/', '/home', '/home/ann', '/work', '/work/shop']);
  async read(path: string) {
    return this.files.get(path) ?? null;
  }
  async write(path: string, text: string) {
    const created: string[] = [];
    for (let d = dirname(path); !this.dirs.has(d); d = dirname(d)) created.unshift(d);
    for (const d of created) this.dirs.add(d);
    this.files.set(path, text);
    return created;
  }
  async remove(path: string) {
    this.files.delete(path);
  }
  async removeEmptyDirs(dirs: string[]) {
    for (const d of [...dirs].sort((a, b) => b.length - a.length)) {
      if (![...this.files.keys(), ...this.dirs].some((p) => p !== d && p.startsWith(`${d}/`))) this.dirs.delete(d);
    }
  }
  /** The agent's files only (memdir's install record lives under the memory root's .mem/). */
  agentFiles() {
    return Object.fromEntries([...this.files].filter(([p]) => !p.includes('/.mem/')));
  }
}

const input = (over: Partial<IntegrateInput> = {}): IntegrateInput => ({
  agent: 'claude-code',
  scope: 'project',
  home: '/home/ann',
  projectDir: '/work/shop',
  mem: ['/usr/bin/node', '/opt/memdir/bin/mem.js'],
  launcher: '/opt/memdir/bin/mem',
  user: 'ann',
  personalRoot: '/home/ann/.memdir',
  promptRecall: false,
  stateRoot: '/work/shop/memories',
  ...over,
});

describe('integrateAgent', () => {
  for (const agent of ['claude-code', 'codex', 'gemini'] as const) {
    for (const scope of ['project', 'user'] as const) {
      it(`${agent}, ${scope} scope: install twice is one change; uninstall restores every file and folder`, async () => {
        const fs = new MemoryTextFiles();
        fs.files.set('/work/shop/.claude/settings.json', '{"model": "opus"}');
        fs.files.set('/home/ann/.codex/config.toml', 'model = "o4"\n[tui]\nx = 1\n');
        fs.files.set('/work/shop/GEMINI.md', '# Shop\n');
        fs.dirs.add('/work/shop/.claude').add('/home/ann/.codex');
        const before = { files: fs.agentFiles(), dirs: [...fs.dirs] };
        const first = await integrateAgent(fs, input({ agent, scope }));
        expect(first.files.every((f) => f.action === 'created' || f.action === 'updated')).toBe(true);
        const installed = fs.agentFiles();
        const second = await integrateAgent(fs, input({ agent, scope }));
        expect(second.files.map((f) => f.action)).toEqual(first.files.map(() => 'unchanged'));
        expect(fs.agentFiles()).toEqual(installed);
        const out = await integrateAgent(fs, input({ agent, scope, uninstall: true }));
        expect(out.files.every((f) => f.action === 'restored' || f.action === 'removed')).toBe(true);
        expect(fs.agentFiles()).toEqual(before.files);
        expect([...fs.dirs].filter((d) => !d.includes('/memories'))).toEqual(before.dirs);
      });
    }
  }

  it("codex keeps a notify of the person's own and adds only the MCP servers", async () => {
    const fs = new MemoryTextFiles();
    fs.files.set('/work/shop/.codex/config.toml', 'notify = ["say"]\n');
    await integrateAgent(fs, input({ agent: 'codex' }));
    const text = fs.files.get('/work/shop/.codex/config.toml')!;
    expect(text.match(/notify =/g)).toHaveLength(1);
    expect(text).toContain(
      '[mcp_servers.memdir-personal]\ncommand = "/usr/bin/node"\nargs = ["/opt/memdir/bin/mem.js", "--root", "/home/ann/.memdir", "mcp", "--user", "ann"]',
    );
  });

  it("a file changed after the install loses only memdir's part; one that does not parse stops the install before any write", async () => {
    const fs = new MemoryTextFiles();
    await integrateAgent(fs, input({ promptRecall: true }));
    const settings = JSON.parse(fs.files.get('/work/shop/.claude/settings.json')!);
    expect(settings.hooks.UserPromptSubmit[0].hooks[0].command).toBe('MEMDIR_NODE=/usr/bin/node /opt/memdir/bin/mem hook claude-code prompt --user ann');
    fs.files.set('/work/shop/.claude/settings.json', JSON.stringify({ ...settings, env: { A: '1' } }));
    const out = await integrateAgent(fs, input({ uninstall: true }));
    expect(out.files.find((f) => f.path.endsWith('settings.json'))!.action).toBe('edited');
    expect(JSON.parse(fs.files.get('/work/shop/.claude/settings.json')!)).toEqual({ env: { A: '1' } });

    const broken = new MemoryTextFiles();
    broken.files.set('/work/shop/.mcp.json', '{ oops');
    await expect(integrateAgent(broken, input())).rejects.toThrow('/work/shop/.mcp.json:1: not valid JSON');
    expect(broken.agentFiles()).toEqual({ '/work/shop/.mcp.json': '{ oops' });
  });

  it('quotes paths with spaces in hook commands', async () => {
    const fs = new MemoryTextFiles();
    await integrateAgent(fs, input({ mem: ['/opt/my node/node', "/Users/a b/it's/mem.js"], launcher: "/Users/a b/it's/mem" }));
    const command = JSON.parse(fs.files.get('/work/shop/.claude/settings.json')!).hooks.Stop[0].hooks[0].command as string;
    // Only the value is quoted: a quoted `NAME=value` would be a command name to the shell, not an assignment.
    expect(command).toBe("MEMDIR_NODE='/opt/my node/node' '/Users/a b/it'\\''s/mem' hook claude-code stop --user ann");
  });

  it('replaces the hook commands an earlier version wrote (node bin/mem.js), not adds beside them', async () => {
    const fs = new MemoryTextFiles();
    const old = (event: string) => ({ type: 'command', command: `/usr/bin/node /opt/memdir/bin/mem.js hook claude-code ${event} --user ann`, timeout: 5 });
    fs.files.set(
      '/work/shop/.claude/settings.json',
      JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [old('prompt')] }], Stop: [{ hooks: [old('stop')] }] } }),
    );
    await integrateAgent(fs, input({ promptRecall: true }));
    const hooks = JSON.parse(fs.files.get('/work/shop/.claude/settings.json')!).hooks;
    const commands = Object.values(hooks).flatMap((groups) => (groups as { hooks: { command: string }[] }[]).flatMap((g) => g.hooks.map((h) => h.command)));
    expect(commands.filter((c) => c.includes('mem.js'))).toEqual([]);
    expect(hooks.UserPromptSubmit.flatMap((g: { hooks: unknown[] }) => g.hooks)).toEqual([
      { type: 'command', command: 'MEMDIR_NODE=/usr/bin/node /opt/memdir/bin/mem hook claude-code prompt --user ann', timeout: 5 },
    ]);
  });

  it("a record written by an earlier version (the whole text) is replaced by one without the person's text, and still uninstalls", async () => {
    const fs = new MemoryTextFiles();
    const original = '{\n  "env": {\n    "GITHUB_TOKEN": "ghp_planted"\n  }\n}\n';
    fs.files.set('/home/ann/.claude/settings.json', original);
    await integrateAgent(fs, input({ scope: 'user', stateRoot: '/home/ann/.memdir' }));
    const [recordPath] = [...fs.files.keys()].filter((p) => p.includes('/.mem/integrations/'));
    const legacy = {
      agent: 'claude-code',
      scope: 'user',
      files: [{ path: '/home/ann/.claude/settings.json', before: original, after: fs.files.get('/home/ann/.claude/settings.json'), createdDirs: [] }],
    };
    fs.files.set(recordPath!, JSON.stringify(legacy));
    await integrateAgent(fs, input({ scope: 'user', stateRoot: '/home/ann/.memdir' }));
    expect(fs.files.get(recordPath!)).not.toContain('ghp_planted');
    const out = await integrateAgent(fs, input({ scope: 'user', stateRoot: '/home/ann/.memdir', uninstall: true }));
    expect(out.files.find((f) => f.path.endsWith('settings.json'))!.action).toBe('restored');
    expect(fs.files.get('/home/ann/.claude/settings.json')).toBe(original);
  });
});
