// The root's private state folder `.mem/`: created on demand, never committed (it ignores itself).
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { STATE_DIR } from '../../memory/layout.js';

export async function ensureStateDir(root: string): Promise<string> {
  const dir = join(root, STATE_DIR);
  const ignore = join(dir, '.gitignore');
  if (existsSync(ignore)) return dir;
  await mkdir(dir, { recursive: true });
  // A .gitignore of "*" inside the folder keeps it out of git wherever the root sits.
  await writeFile(ignore, '*\n');
  return dir;
}
