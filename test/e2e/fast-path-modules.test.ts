// The built fast path of `mem search` (dist/cli/fast-search.js, what bin/mem.js loads for a plain search) loads no
// package of node_modules that is CommonJS: loading one from an ES module costs every search its interop.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import { describe, expect, it } from 'vitest';

const FAST_SEARCH = new URL('../../dist/cli/fast-search.js', import.meta.url).href;

describe('the fast path of mem search', () => {
  it('loads no CommonJS module when it is imported', async () => {
    const probe = `import { createRequire } from 'node:module';
await import(${JSON.stringify(FAST_SEARCH)});
process.stdout.write(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', probe]);
    expect(JSON.parse(stdout)).toEqual([]);
  });
});
