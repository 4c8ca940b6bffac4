// Throwaway memory roots built from an object literal of files (changesets' testdir style).
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { inject } from 'vitest';

/** Integration runs create roots inside their own folder, so their teardown can find them all. */
function baseDir(): string {
  try {
    return inject('runTmpDir') ?? tmpdir();
  } catch {
    return tmpdir();
  }
}

export async function tempRoot(files: Record<string, string | Uint8Array> = {}, prefix = 'memdir-test-'): Promise<string> {
  const root = await mkdtemp(join(baseDir(), prefix));
  for (const [path, content] of Object.entries(files)) {
    const abs = join(root, path);
    await mkdir(dirname(abs), { recursive: true });
    await writeFile(abs, content);
  }
  return root;
}
