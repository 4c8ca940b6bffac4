// Covers rewriteMemory on a hand-written file: a lifecycle change (a supersede marking it) keeps the person's line
// endings (CRLF) and byte order mark, so `git diff` shows the lines that changed and not every line of the file.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { rewriteMemory } from '../../../src/services/core/rewrite.js';
import { tempRoot } from '../../support/temp-root.js';
import { unitDeps } from '../../support/unit-deps.js';

const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((r) => rm(r, { recursive: true, force: true })));
});

const BOM = '\ufeff';

async function rewritten(original: string): Promise<string> {
  const root = await tempRoot({});
  roots.push(root);
  await writeFile(join(root, 'home.md'), original);
  const deps = unitDeps(root);
  const meta = await rewriteMemory(deps, 'home.md', (m) => ({ ...m, status: 'superseded' }));
  expect(meta.status).toBe('superseded');
  return readFile(join(root, 'home.md'), 'utf8');
}

describe('rewriteMemory', () => {
  it('keeps CRLF line endings and a byte order mark as the person wrote them', async () => {
    const text = await rewritten(`${BOM}---\r\nid: alice-home\r\nkey: home\r\n---\r\nAlice lives in Porto.\r\n\r\nShe walks to the river.\r\n`);
    expect(text.startsWith(`${BOM}---\r\n`)).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toContain('\n');
    expect(text).toContain('status: superseded\r\n');
    expect(text.endsWith('Alice lives in Porto.\r\n\r\nShe walks to the river.\r\n')).toBe(true);
  });

  it('writes LF and no mark for a file that has neither', async () => {
    const text = await rewritten('---\nid: alice-home\n---\nAlice lives in Porto.\n');
    expect(text.startsWith('---\n')).toBe(true);
    expect(text).not.toContain('\r');
    expect(text).toContain('status: superseded\n');
  });
});
