// File modes as `ls -l` shows them after the real bin/mem wrote memories in a temporary HOME: personal memory
// (~/.memdir) and every `.mem/` are owner-only, project memory files keep the modes the repository gives them,
// and a `.mem/` or ~/.memdir left open by an earlier version is closed the next time memdir opens it.
import { execFileSync } from 'node:child_process';
import { chmod, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config.js';
import { MEM_BIN, cleanEnv, runMem } from '../support/harness.js';
import { tempRoot } from '../support/temp-root.js';

const modeOf = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);

/** Every folder and file under `dir` (itself included), with its mode. */
async function modesUnder(dir: string): Promise<{ path: string; dir: boolean; mode: string }[]> {
  const out = [{ path: dir, dir: true, mode: await modeOf(dir) }];
  for (const name of await readdir(dir, { recursive: true })) {
    const path = join(dir, name);
    const st = await stat(path);
    out.push({ path, dir: st.isDirectory(), mode: (st.mode & 0o777).toString(8) });
  }
  return out;
}

describe('modes of personal memory and of .mem/', () => {
  let home: string;
  let shop: string;
  let env: Record<string, string>;
  const personal = () => join(home, '.memdir');
  const project = () => join(shop, 'memories');
  // What the repository's own files get here: the umask's modes.
  const umask = process.umask();
  const repoDir = (0o777 & ~umask).toString(8);
  const repoFile = (0o666 & ~umask).toString(8);

  beforeAll(async () => {
    home = await tempRoot({}, 'memdir-e2e-modes-home-');
    shop = await tempRoot({ 'README.md': '# shop\n' }, 'memdir-e2e-modes-shop-');
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: shop });
    // The suite's provisioned runtime, not one under the temporary home.
    env = { HOME: home, MEMDIR_HOME: loadConfig(process.env).runtimeHome };
    for (const root of [personal(), project()]) {
      const r = await runMem(['add', 'Ann prefers tabs over spaces in Go code', '--user', 'ann', '--key', 'indent', '--json'], { root, env });
      expect(r.code, r.stderr).toBe(0);
    }
    // An agent's session start in the project: it writes the hook log under the project's .mem/.
    const payload = { session_id: 's-1', transcript_path: join(home, 's-1.jsonl'), cwd: shop, hook_event_name: 'SessionStart', source: 'startup' };
    execFileSync(process.execPath, [MEM_BIN, 'hook', 'claude-code', 'session-start', '--user', 'ann'], {
      input: JSON.stringify(payload),
      env: cleanEnv({ ...env, MEM_HOOK_START_MS: '30000' }),
    });
  });
  afterAll(async () => {
    for (const root of [personal(), project()]) await runMem(['server', 'stop'], { root, env });
    for (const dir of [home, shop]) await rm(dir, { recursive: true, force: true });
  });

  it('~/.memdir is owner-only (0700)', async () => {
    expect(await modeOf(personal())).toBe('700');
  });

  it('every folder of each .mem/ is 0700 and every file 0600 (manifest, vectors, root id, hook log, …)', async () => {
    expect((await stat(join(project(), '.mem', 'hooks', 'log.jsonl'))).size).toBeGreaterThan(0);
    for (const root of [personal(), project()]) {
      const entries = await modesUnder(join(root, '.mem'));
      expect(entries.filter((e) => !e.dir).length).toBeGreaterThan(3);
      for (const e of entries) expect(e.mode, e.path).toBe(e.dir ? '700' : '600');
    }
  });

  it("project memory keeps the repository's modes", async () => {
    expect(await modeOf(project())).toBe(repoDir);
    const files = (await readdir(project(), { recursive: true })).filter((f) => f.endsWith('.md'));
    expect(files).toHaveLength(1);
    expect(await modeOf(join(project(), files[0]!))).toBe(repoFile);
  });

  it('a .mem/ and a ~/.memdir that others could read are closed when memdir next opens them', async () => {
    await chmod(personal(), 0o755);
    await chmod(join(personal(), '.mem'), 0o755);
    await chmod(join(project(), '.mem'), 0o755);
    for (const root of [personal(), project()]) expect((await runMem(['search', 'tabs or spaces', '--user', 'ann', '--json'], { root, env })).code).toBe(0);
    expect(await modeOf(personal())).toBe('700');
    expect(await modeOf(join(personal(), '.mem'))).toBe('700');
    expect(await modeOf(join(project(), '.mem'))).toBe('700');
    expect(await modeOf(project())).toBe(repoDir);
  });
});
