// What people do on two machines between syncs, with real git, the real `bin/mem`, Milvus Lite and the model: the same
// day captured on both, the same memory corrected on both, a memory forgotten on one and edited on the other. After
// each `mem sync` on both: no conflict markers, nothing lost (every text in a file or the supersede chain), doctors clean.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { stateHolding } from '../support/byte-scan.js';
import { gitIn, machines, type Machines } from '../support/git-clones.js';

const MACHINES = ['laptop', 'desk'];

const memory = (id: string, updated: string, body: string) =>
  `---\nid: ${id}\nuser: ann\ntype: semantic\ncreated: 2026-11-01T08:00:00.000Z\nupdated: ${updated}\n---\n${body}\n`;

describe('two machines between syncs', () => {
  let m: Machines;

  async function ingest(machine: string, time: string, text: string): Promise<void> {
    const file = join(m.dir, `talk-${machine}-${time.replace(/\W/g, '')}.json`);
    await writeFile(file, JSON.stringify([{ role: 'user', content: text, time }]));
    const r = await m.mem(machine, ['ingest', file, '-u', 'ann', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
  }

  /** Syncs the first machine, then the second, then the first again: both end with the same files. */
  async function syncAll(): Promise<void> {
    for (const machine of [...MACHINES, MACHINES[0]!]) {
      const out = await m.mem(machine, ['sync', '--json']);
      expect(out.code, `${machine}: ${out.stdout}${out.stderr}`).toBe(0);
    }
    for (const machine of MACHINES) {
      expect(await m.texts(machine)).not.toMatch(/^(<{7}|>{7}|={7})( |$)/m);
      expect(gitIn(m.roots[machine]!, 'status', '--porcelain')).toBe('');
      const doctor = await m.mem(machine, ['doctor', '--json']);
      expect(doctor.json.problems, machine).toEqual([]);
    }
    expect(await m.texts('laptop')).toBe(await m.texts('desk'));
  }

  beforeAll(async () => {
    m = await machines(MACHINES, { user: 'ann', text: 'Ann lives in Lyon with her two cats' });
    await writeFile(join(m.roots.laptop!, 'ann/semantic/home.md'), memory('home', '2026-11-01T08:00:00.000Z', 'Ann works from a flat in Lyon.'));
    await writeFile(join(m.roots.laptop!, 'ann/semantic/car.md'), memory('car', '2026-11-01T08:00:00.000Z', 'Ann drives a red Zoe with plate ZX-481.'));
    await syncAll();
  });
  afterAll(async () => {
    await m?.dispose();
  });

  it('the same day captured on both machines: one day log holding every session once, in time order', async () => {
    await ingest('laptop', '2026-12-01T09:00:00Z', 'On the laptop Ann planned the garden shed.');
    await ingest('desk', '2026-12-01T08:00:00Z', 'On the workstation Ann booked the ferry to Corsica.');
    await ingest('desk', '2026-12-01T11:00:00Z', 'Later Ann ordered cedar boards for the shed.');
    await syncAll();
    const texts = await m.texts('laptop');
    const order = ['ferry to Corsica', 'garden shed', 'cedar boards'].map((t) => texts.indexOf(t));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((x, y) => x - y));
    expect(texts.split('booked the ferry').length).toBe(2);
    const found = await m.mem('laptop', ['search', 'ferry to Corsica', '-u', 'ann', '--json']);
    expect(found.json.results.map((r: { content: string }) => r.content).join('\n')).toContain('ferry to Corsica');
  });

  it('the same memory corrected on both machines: the later one found, the other kept in the supersede chain', async () => {
    await writeFile(join(m.roots.laptop!, 'ann/semantic/home.md'), memory('home', '2026-12-01T10:00:00.000Z', 'Ann works from a flat in Paris.'));
    await writeFile(join(m.roots.desk!, 'ann/semantic/home.md'), memory('home', '2026-12-02T10:00:00.000Z', 'Ann works from a flat in Hamburg.'));
    await syncAll();
    const texts = await m.texts('desk');
    expect(texts).toContain('Ann works from a flat in Paris.');
    expect(texts).toContain('Ann works from a flat in Hamburg.');
    const found = await m.mem('desk', ['search', 'where does Ann work from', '-u', 'ann', '--json']);
    expect(found.json.results[0].content).toContain('Hamburg');
    const history = await m.mem('laptop', ['search', 'where does Ann work from', '-u', 'ann', '--history', '--json']);
    expect(history.json.results.map((r: { content: string }) => r.content).join('\n')).toContain('Paris');
  });

  it('forgotten on one machine, edited on the other: the forget wins, and its text leaves the editing machine', async () => {
    expect((await m.mem('desk', ['forget', 'car', '-u', 'ann', '--json'])).code).toBe(0);
    await writeFile(
      join(m.roots.laptop!, 'ann/semantic/car.md'),
      memory('car', '2026-12-03T08:00:00.000Z', 'Ann drives a red Zoe with plate ZX-481 and winter tyres.'),
    );
    expect((await m.mem('laptop', ['reindex', '--json'])).code).toBe(0);
    await syncAll();
    for (const machine of MACHINES) {
      expect(await m.texts(machine)).not.toContain('ZX-481');
      expect(await stateHolding(m.roots[machine]!, [Buffer.from('ZX-481')])).toEqual([]);
    }
  });
});
