// The Milvus Lite that memdir starts defers its background compaction and index builds while a collection is being
// written (memdir_runtime/lite_write_patch.py): the patch applies to the pinned Milvus Lite; in process, under a
// stream of inserts that flushes several times, no segment gets an index until the writes pause (unpatched, they do),
// every row is found meanwhile (brute force), every segment is indexed after the pause, deletes hold, and closing
// the collection does not wait for a pause.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ensureRuntime, type Runtime } from '../../src/adapters/runtime/python-runtime.js';
import { PYTHON_CODE_DIR, pythonCodeEnv } from '../../src/adapters/runtime/python-code.js';
import { loadConfig } from '../../src/config.js';
import { cleanEnv } from '../support/harness.js';

interface Check {
  applied: boolean;
  segmentsDuringStream: number;
  indexedDuringStream: number;
  foundDuringStream: boolean;
  segmentsAfterDelete: number;
  indexedAfterDelete: number;
  segmentsAfterPause: number;
  indexedAfterPause: number;
  foundAfterPause: boolean;
  closeSeconds: number;
}

describe('Milvus Lite background maintenance waits for a pause in writes', () => {
  let runtime: Runtime;
  let dir = '';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'memdir-lite-writes-'));
    const config = loadConfig(cleanEnv(), { root: dir });
    runtime = await ensureRuntime({ home: config.runtimeHome, python: config.python });
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const check = async (mode: 'patched' | 'original'): Promise<Check> => {
    const script = join(PYTHON_CODE_DIR, 'checks', 'lite_write_check.py');
    const { stdout } = await promisify(execFile)(runtime.python, [script, join(dir, mode), mode], { env: { ...process.env, ...pythonCodeEnv() } });
    return JSON.parse(stdout.trim().split('\n').at(-1)!) as Check;
  };

  it('applies to the pinned Milvus Lite and defers the builds of a stream until it pauses', async () => {
    const r = await check('patched');
    expect(r.applied).toBe(true);
    expect(r.segmentsDuringStream).toBeGreaterThanOrEqual(2); // the stream flushed several times
    expect(r.indexedDuringStream).toBe(0);
    expect(r.foundDuringStream).toBe(true);
    expect(r.indexedAfterDelete).toBe(0); // a delete is a write: still deferred a second later
    expect(r.indexedAfterPause).toBe(r.segmentsAfterPause);
    expect(r.segmentsAfterPause).toBeGreaterThanOrEqual(1);
    expect(r.foundAfterPause).toBe(true); // the rows, indexed, and the deleted one gone
    expect(r.closeSeconds).toBeLessThan(1.5);
  }, 120_000);

  it('unpatched, the same stream gets indexes while it runs (the control)', async () => {
    const r = await check('original');
    expect(r.applied).toBe(false);
    expect(r.indexedDuringStream).toBeGreaterThan(0);
    expect(r.foundAfterPause).toBe(true);
  }, 120_000);
});
