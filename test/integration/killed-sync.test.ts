// A reindex killed with SIGKILL part-way leaves nothing the next run cannot repair: it converges on the files.
import { spawn } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { MEM_BIN, cleanEnv, runMem } from '../support/harness.js';
import { tempRoot } from '../support/temp-root.js';

const TOPICS = ['sailing', 'chess', 'pottery', 'astronomy', 'baking', 'climbing', 'violin', 'gardening'];

function corpus(version: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < 40; i++) {
    const topic = TOPICS[i % TOPICS.length]!;
    files[`u${i % 3}/semantic/note-${i}.md`] =
      `# Note ${i}\n\nUser ${i % 3} talked about ${topic} (version ${version}).\n\n## Details\n\nSession ${i} covered ${topic} basics and a plan for next week, revision ${version}.\n`;
  }
  return files;
}

describe('reindex killed at random points', () => {
  let root: string;

  beforeAll(async () => {
    root = await tempRoot(corpus(0), 'memdir-it-kill-');
    await runMem(['setup'], { root }); // servers up, so kills land inside the sync itself
  });
  afterAll(async () => {
    await runMem(['server', 'stop'], { root });
    await rm(root, { recursive: true, force: true });
  });

  it('converges to exactly what the files say after each kill', async () => {
    for (let run = 1; run <= 4; run++) {
      // Change every file, delete one and add one, so a kill can land between any two steps.
      for (const [path, text] of Object.entries(corpus(run))) await writeFile(join(root, path), text);
      await rm(join(root, `u${run % 3}/semantic/note-${run}.md`), { force: true });
      const child = spawn(process.execPath, [MEM_BIN, '--root', root, 'reindex', '--json'], { env: cleanEnv(), stdio: 'ignore' });
      await sleep(300 + ((run * 617) % 2500));
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));

      const again = await runMem(['reindex', '--json'], { root });
      expect(again.code).toBe(0);
      const status = await runMem(['status', '--json'], { root });
      expect(status.json.drift).toMatchObject({ inSync: true, unindexed: [], changed: [], deleted: [] });
      expect(status.json.files).toBe(39);
      expect(status.json.indexRows).toBe(status.json.chunks);
      const hit = await runMem(['search', `revision ${run} chess basics`, '--user', 'u1', '--json', '-k', '3'], { root });
      expect(hit.json.results[0].content).toContain(`revision ${run}`);
      // Restore the deleted file for the next round.
      await writeFile(join(root, `u${run % 3}/semantic/note-${run}.md`), corpus(run)[`u${run % 3}/semantic/note-${run}.md`]!);
    }
  });
});
