// The patch-package patches (patches/) are made for one exact version each: the installed package must be that
// version, and every file a patch changes must hold the change (patch-package --error-on-fail also stops the install).
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

const top = join(import.meta.dirname, '..', '..');

async function patches(): Promise<{ file: string; name: string; version: string; touched: string[] }[]> {
  const files = (await readdir(join(top, 'patches'))).filter((f) => f.endsWith('.patch'));
  return Promise.all(
    files.map(async (file) => {
      const [, name, version] = /^(.+)\+(\d+\.\d+\.\d+)\.patch$/.exec(file) ?? expect.fail(`unexpected patch name ${file}`);
      const text = await readFile(join(top, 'patches', file), 'utf8');
      const touched = [...text.matchAll(/^\+\+\+ b\/(.+)$/gm)].map((m) => m[1]!);
      return { file, name: name!.replace('+', '/'), version: version!, touched };
    }),
  );
}

describe('vendor patches', () => {
  it('each is made for the version installed, and the lock file pins that version', async () => {
    const lock = JSON.parse(await readFile(join(top, 'package-lock.json'), 'utf8'));
    const found = await patches();
    expect(found.length).toBeGreaterThan(0);
    for (const p of found) {
      const installed = JSON.parse(await readFile(join(top, 'node_modules', p.name, 'package.json'), 'utf8')).version;
      expect(installed, `${p.file}: made for ${p.name} ${p.version}, installed ${installed}`).toBe(p.version);
      expect(lock.packages[`node_modules/${p.name}`]?.version, `${p.file}: the lock file's ${p.name}`).toBe(p.version);
    }
  });

  it('every file a patch changes holds the change', async () => {
    for (const p of await patches()) {
      expect(p.touched.length).toBeGreaterThan(0);
      for (const path of p.touched) expect(await readFile(join(top, path), 'utf8'), `${p.file}: ${path}`).toContain('memdir patch');
    }
  });
});
