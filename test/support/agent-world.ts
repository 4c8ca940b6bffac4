// A person's world for e2e tests of agent hooks: a temporary HOME with personal memory, a project (a git repository
// whose memories/ is the project's root) and a socket folder of its own, and the environment of `mem` run in it.
import { execFileSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

import { loadConfig } from '../../src/config.js';
import { tempRoot } from './temp-root.js';

export interface AgentWorld {
  home: string;
  /** The project's working tree (its memory root is `<shop>/memories`). */
  shop: string;
  personal: string;
  /** The socket folder: this world's daemons (and their logs) are the only ones its processes reach. */
  run: string;
  /** `ann`'s environment with daemons on; `extra` added. */
  env: Record<string, string>;
}

export async function agentWorld(extra: Record<string, string> = {}): Promise<AgentWorld> {
  const home = await tempRoot({}, 'memdir-e2e-home-');
  const personal = join(home, '.memdir');
  const shop = await tempRoot({ 'README.md': '# shop\n' }, 'memdir-e2e-shop-');
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: shop });
  const run = join(home, 'run');
  await mkdir(run, { mode: 0o700 });
  const env = {
    HOME: home,
    MEMDIR_HOME: loadConfig(process.env).runtimeHome,
    MEM_PERSONAL_ROOT: personal,
    MEM_USER: 'ann',
    MEM_DAEMON: 'on',
    XDG_RUNTIME_DIR: run,
    ...extra,
  };
  return { home, shop, personal, run, env };
}
