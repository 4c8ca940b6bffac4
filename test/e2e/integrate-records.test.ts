// `mem integrate` with the real bin/mem in a temporary HOME: the install record keeps none of the person's
// values (a token planted in every agent file never reaches it) and is owner-only, uninstall still gives every
// file back byte for byte with its mode, and the edge cases get a clear answer without touching the files.
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { runMem } from '../support/harness.js';
import { tempRoot } from '../support/temp-root.js';

const TOKEN = 'ghp_PlantedTokenNeverCopied0123456789abcd';
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });
const modeOf = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);

/** Every file under a folder, with its text. */
async function filesUnder(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const name of await readdir(dir, { recursive: true }).catch(() => [] as string[])) {
    const path = join(dir, name);
    if ((await stat(path)).isFile()) out.set(path, await readFile(path, 'utf8'));
  }
  return out;
}

describe('mem integrate: what it records and what it refuses', () => {
  let home: string;
  let shop: string;
  let env: Record<string, string>;
  const personal = () => join(home, '.memdir');

  beforeEach(async () => {
    home = await tempRoot({}, 'memdir-e2e-int-home-');
    shop = await tempRoot({ 'README.md': '# shop\n' }, 'memdir-e2e-int-shop-');
    git(shop, 'init', '-q', '-b', 'main');
    env = { HOME: home, MEM_USER: 'ann' };
  });
  afterEach(async () => {
    for (const dir of [home, shop]) await rm(dir, { recursive: true, force: true });
  });

  /** The person's agent files, each holding the planted token, private (0600) as people keep them. */
  async function plant(): Promise<Record<string, string>> {
    const server = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: { GITHUB_TOKEN: TOKEN } };
    const files: Record<string, string> = {
      [join(home, '.claude.json')]: `${JSON.stringify({ numStartups: 3, mcpServers: { github: server } }, null, 2)}\n`,
      [join(home, '.claude', 'settings.json')]: `${JSON.stringify({ env: { GITHUB_TOKEN: TOKEN } }, null, 2)}\n`,
      [join(shop, '.mcp.json')]: JSON.stringify({ mcpServers: { github: server } }),
      [join(shop, '.claude', 'settings.json')]: `{\n    "env": { "GITHUB_TOKEN": "${TOKEN}" }\n}\n`,
      [join(home, '.codex', 'config.toml')]: `model = "o4-mini"\n\n[mcp_servers.github]\ncommand = "npx"\nenv = { GITHUB_TOKEN = "${TOKEN}" }\n`,
      [join(shop, '.codex', 'config.toml')]: `[mcp_servers.github]\nenv = { GITHUB_TOKEN = "${TOKEN}" }\n`,
      [join(home, '.gemini', 'settings.json')]: `{\n  "mcpServers": { "github": { "env": { "GITHUB_TOKEN": "${TOKEN}" } } }\n}\n`,
      [join(shop, '.gemini', 'settings.json')]: `{"mcpServers":{"github":{"env":{"GITHUB_TOKEN":"${TOKEN}"}}}}`,
      [join(shop, 'AGENTS.md')]: `# Agents\n\nThe CI token is ${TOKEN}.\n`,
    };
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, text, { mode: 0o600 });
      await chmod(path, 0o600);
    }
    return files;
  }

  it('the record of every agent and scope keeps no value of the person’s, is owner-only, and uninstall still restores every file', async () => {
    const originals = await plant();
    const runs = (['claude-code', 'codex', 'gemini'] as const).flatMap((agent) => (['user', 'project'] as const).map((scope) => [agent, scope] as const));
    for (const [agent, scope] of runs) {
      const r = await runMem(['integrate', agent, '--scope', scope, '--dir', shop, '--json'], { env });
      expect(r.code, `${agent} ${scope}: ${r.stderr}`).toBe(0);
    }
    // Installed: the person's token is still in their own files, next to memdir's servers.
    const claudeJson = await readFile(join(home, '.claude.json'), 'utf8');
    expect(claudeJson).toContain(TOKEN);
    expect(claudeJson).toContain('memdir-personal');

    const records = [join(personal(), '.mem'), join(shop, 'memories', '.mem')];
    const recorded = new Map([...(await filesUnder(records[0]!)), ...(await filesUnder(records[1]!))]);
    const recordFiles = [...recorded.keys()].filter((p) => p.includes(`${join('.mem', 'integrations')}`));
    expect(recordFiles).toHaveLength(6);
    for (const [path, text] of recorded) {
      expect(text, path).not.toContain(TOKEN);
      expect(text, path).not.toContain('numStartups');
      expect(await modeOf(path), path).toBe('600');
    }
    for (const dir of [personal(), ...records, ...records.map((r) => join(r, 'integrations'))]) expect(await modeOf(dir), dir).toBe('700');

    for (const [agent, scope] of runs) {
      const r = await runMem(['integrate', agent, '--scope', scope, '--dir', shop, '--uninstall', '--json'], { env });
      expect(r.code, `${agent} ${scope}: ${r.stderr}`).toBe(0);
      for (const f of r.json.files) expect(['restored', 'removed'], `${agent} ${scope} ${f.path}`).toContain(f.action);
    }
    for (const [path, text] of Object.entries(originals)) {
      expect(await readFile(path, 'utf8'), path).toBe(text);
      expect(await modeOf(path), path).toBe('600');
    }
  });

  it('codex with a notify of the person’s own says that capture is not installed, and keeps their notify', async () => {
    const config = join(home, '.codex', 'config.toml');
    await mkdir(dirname(config), { recursive: true });
    await writeFile(config, 'notify = ["notify-send", "codex"]\n');
    const human = await runMem(['integrate', 'codex', '--scope', 'user', '--dir', shop], { env });
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('capture NOT installed');
    expect(human.stdout).not.toContain('notify → capture of each turn');
    const json = await runMem(['integrate', 'codex', '--scope', 'user', '--dir', shop, '--json'], { env });
    expect(json.json.warnings).toEqual([expect.stringContaining('its own top-level notify')]);
    const text = await readFile(config, 'utf8');
    expect(text.match(/^notify =/gm)).toEqual(['notify =']);
    expect(text).toContain('notify = ["notify-send", "codex"]');
    expect(text).toContain('[mcp_servers.memdir-project]');
  });

  it('a settings.json that is a folder is a usage error by path, and nothing is written', async () => {
    await mkdir(join(shop, '.claude', 'settings.json'), { recursive: true });
    const r = await runMem(['integrate', 'claude-code', '--dir', shop], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(shop, '.claude', 'settings.json')} is a folder`);
    expect(r.stderr).not.toContain('bug in memdir');
    expect((await readdir(shop)).sort()).toEqual(['.claude', '.git', 'README.md']);
  });

  it('hooks of a shape memdir would have to replace are refused by path and line, and no file is changed', async () => {
    const settings = join(shop, '.claude', 'settings.json');
    const text = '{\n  "hooks": {\n    "Stop": {"a": 1}\n  }\n}\n';
    await mkdir(dirname(settings), { recursive: true });
    await writeFile(settings, text);
    const r = await runMem(['integrate', 'claude-code', '--dir', shop], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${settings}:3: "hooks.Stop" is not a list of hook groups`);
    expect(await readFile(settings, 'utf8')).toBe(text);
    expect((await readdir(shop)).sort()).toEqual(['.claude', '.git', 'README.md']);
  });

  it('a Gemini settings file with comments is edited in place: the comments stay, and uninstall gives it back', async () => {
    const settings = join(home, '.gemini', 'settings.json');
    const text =
      '{\n  // Dracula is easier on the eyes\n  "theme": "Dracula", /* since May */\n  "mcpServers": {\n    "git": { "command": "uvx" } // mine\n  }\n}\n';
    await mkdir(dirname(settings), { recursive: true });
    await writeFile(settings, text);
    const r = await runMem(['integrate', 'gemini', '--scope', 'user', '--dir', shop], { env });
    expect(r.code, r.stderr).toBe(0);
    const installed = await readFile(settings, 'utf8');
    for (const kept of ['// Dracula is easier on the eyes', '/* since May */', '"git": { "command": "uvx" }', '// mine']) expect(installed).toContain(kept);
    expect(installed).toContain('"memdir-project"');
    expect(installed).toContain('hook gemini after-agent --user ann');
    expect((await runMem(['integrate', 'gemini', '--scope', 'user', '--dir', shop, '--uninstall'], { env })).code).toBe(0);
    expect(await readFile(settings, 'utf8')).toBe(text);
  });
});
