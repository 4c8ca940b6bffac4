// Covers rootMayHoldMemories, what the prompt hook checks before asking a root's daemon: a root that is not there, or
// holds only its state folder and git's files, cannot hold a memory; any Markdown file or folder the scan enters may.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { rootMayHoldMemories } from '../../../src/open/light.js';
import { tempRoot } from '../../support/temp-root.js';

const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe('rootMayHoldMemories', () => {
  it('is false for a root that is not there, a file, or one with only a hook log, git files and no Markdown', async () => {
    const dir = await tempRoot();
    made.push(dir);
    expect(rootMayHoldMemories(join(dir, 'missing'))).toBe(false);
    await writeFile(join(dir, 'a-file'), 'x');
    expect(rootMayHoldMemories(join(dir, 'a-file'))).toBe(false);
    const root = join(dir, 'memories');
    await mkdir(join(root, '.mem', 'hooks'), { recursive: true });
    await writeFile(join(root, '.mem', 'hooks', 'log.jsonl'), '{}\n');
    await mkdir(join(root, '.git'));
    await mkdir(join(root, 'node_modules'));
    await writeFile(join(root, '.gitignore'), '.mem/\n');
    await writeFile(join(root, 'notes.txt'), 'not a memory');
    expect(rootMayHoldMemories(root)).toBe(false);
  });

  it('is true once it holds a Markdown file or a folder the scan enters (a user folder, even an empty one)', async () => {
    const root = await tempRoot();
    made.push(root);
    await mkdir(join(root, '.mem'));
    await writeFile(join(root, 'loose.MD'), '# a memory of the default owner');
    expect(rootMayHoldMemories(root)).toBe(true);
    await rm(join(root, 'loose.MD'));
    await mkdir(join(root, 'ann'));
    expect(rootMayHoldMemories(root)).toBe(true);
  });
});
