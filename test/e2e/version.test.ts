// `mem --version` answers with package.json's version, as text or JSON, without loading the CLI.
import { readFile } from 'node:fs/promises';

import { describe, expect, it } from 'vitest';

import { runMem } from '../support/harness.js';

describe('mem --version', () => {
  it('prints the package version, alone or as JSON, and help lists the option', async () => {
    const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
    const plain = await runMem(['--version']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toBe(`${version}\n`);
    expect((await runMem(['-V'])).stdout).toBe(`${version}\n`);
    const json = await runMem(['--version', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ version });
    const help = await runMem(['--help']);
    expect(help.stdout).toContain('--version');
  });
});
