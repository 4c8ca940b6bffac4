// memdir's Python code is found from the adapters, and both sides name the servers' environment the same way.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { IDLE_ENV, LEASES_ENV, ROOTS_ENV, SECRET_ENV, WATCH_ENV, stoppingMarker } from '../../../../src/adapters/runtime/owner-only.js';
import { PYTHON_CODE_DIR, pythonCodeEnv, pythonModuleArgs } from '../../../../src/adapters/runtime/python-code.js';

const source = (name: string) => readFile(join(PYTHON_CODE_DIR, 'memdir_runtime', name), 'utf8');

describe('python code', () => {
  it('holds every module the adapters run', () => {
    for (const module of ['milvus_lite_server', 'embedder_server', 'mpnet_server', 'reassemble_mpnet']) {
      expect(existsSync(join(PYTHON_CODE_DIR, 'memdir_runtime', `${module}.py`))).toBe(true);
    }
    expect(pythonModuleArgs('embedder_server', ['8080'])).toEqual(['-m', 'memdir_runtime.embedder_server', '8080']);
    expect(pythonCodeEnv()).toEqual({ PYTHONPATH: PYTHON_CODE_DIR, PYTHONDONTWRITEBYTECODE: '1' });
  });

  it('names the environment variables and the stopping marker as the TypeScript side does', async () => {
    const lifecycle = await source('lifecycle.py');
    expect(lifecycle).toContain(`WATCH_ENV = "${WATCH_ENV}"`);
    expect(lifecycle).toContain(`ROOTS_ENV = "${ROOTS_ENV}"`);
    expect(lifecycle).toContain(`LEASES_ENV = "${LEASES_ENV}"`);
    expect(lifecycle).toContain(`IDLE_ENV = "${IDLE_ENV}"`);
    expect(lifecycle).toContain(`STOPPING_PREFIX = "${stoppingMarker(0).replace(/0$/, '')}"`);
    expect(await source('secret.py')).toContain(`SECRET_ENV = "${SECRET_ENV}"`);
  });
});
