// The package as a consumer sees it: `import { openMemory, loadConfig } from 'memdir'` resolved through
// package.json "exports" to the built dist/, type-checked by tsc and run by node against a real root.
import { execFile } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { disposeE2eRoot, e2eRoot } from '../support/e2e-root.js';
import { cleanEnv } from '../support/harness.js';
import { tempRoot } from '../support/temp-root.js';

const run = promisify(execFile);
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const CONSUMER = `
import { loadConfig, openMemory, NotFoundError, type AddResult, type Memory, type SearchResult } from 'memdir';

const root = process.argv[2]!;
// The declarations are real types, not any: tsc fails on an unused expect-error (never run).
// @ts-expect-error root must be a string
if (root === '') loadConfig(process.env, { root: 1 });
const memory: Memory = await openMemory(loadConfig(process.env, { root }));
try {
  const added: AddResult = await memory.add({ text: 'Alice prefers window seats', user: 'alice', type: 'semantic', tags: ['travel'] });
  const hits: SearchResult[] = await memory.search({ query: 'seat preference', user: 'alice', k: 3 });
  const got = await memory.get({ id: added.id, user: 'alice' });
  const listed = await memory.list({ user: 'alice' });
  const report = await memory.reindex();
  const forgotten = await memory.forget({ ids: [added.id], user: 'alice' });
  let gone = false;
  try {
    await memory.get({ id: added.id, user: 'alice' });
  } catch (err) {
    gone = err instanceof NotFoundError;
  }
  process.stdout.write(JSON.stringify({
    action: added.action, top: hits[0]?.id === added.id, content: got.content, listed: listed.total,
    skipped: report.skipped, removed: forgotten.removed.length, gone,
  }));
} finally {
  await memory.close();
}
`;

describe('library API from a consumer package', () => {
  let consumer: string;
  let root: string;

  beforeAll(async () => {
    consumer = await tempRoot({ 'package.json': '{"type": "module", "private": true}', 'consumer.ts': CONSUMER }, 'memdir-consumer-');
    await mkdir(join(consumer, 'node_modules'));
    await symlink(REPO, join(consumer, 'node_modules', 'memdir'), 'dir');
    root = await e2eRoot({}, 'memdir-e2e-library-');
  });
  afterAll(async () => {
    await disposeE2eRoot(root, consumer);
  });

  it('type-checks against the published declarations and runs add, search, get, list, reindex, forget, close', async () => {
    const tsc = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
    await run(
      process.execPath,
      [
        tsc,
        '--strict',
        '--target',
        'es2022',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--typeRoots',
        join(REPO, 'node_modules', '@types'),
        '--types',
        'node',
        '--outDir',
        'out',
        'consumer.ts',
      ],
      { cwd: consumer },
    );
    await writeFile(join(consumer, 'out', 'package.json'), '{"type": "module"}');
    const { stdout } = await run(process.execPath, [join(consumer, 'out', 'consumer.js'), root], { cwd: consumer, env: cleanEnv() });
    expect(JSON.parse(stdout)).toEqual({
      action: 'ADD',
      top: true,
      content: 'Alice prefers window seats',
      listed: 1,
      skipped: 1,
      removed: 1,
      gone: true,
    });
  });
});
