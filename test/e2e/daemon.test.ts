// The search daemon: started by the first `mem search`, it answers later ones over its socket, sees writes
// made by other processes at once, and closes the root with `mem server stop` (shared-daemon.test.ts: several roots).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { disposeE2eRoot, e2eRoot } from '../support/e2e-root.js';
import { runMem } from '../support/harness.js';

async function waitFor(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

const daemonOn = (args: string[], root: string) => runMem(args, { root, env: { MEM_DAEMON: 'on' } });

describe('search daemon', () => {
  let root: string;
  beforeAll(async () => {
    root = await e2eRoot({ 'kim/semantic/plant.md': 'Kim waters the fig tree every Sunday.\n' }, 'memdir-e2e-daemon-');
  });
  afterAll(async () => {
    await disposeE2eRoot(root);
  });

  it('starts after the first search and then answers with the same results', async () => {
    const first = await daemonOn(['search', 'when does Kim water plants', '--user', 'kim', '--json'], root);
    expect(first.code).toBe(0);
    const running = await waitFor(async () => (await daemonOn(['server', 'status', '--json'], root)).json?.daemon?.running === true, 30_000);
    expect(running).toBe(true);
    const second = await daemonOn(['search', 'when does Kim water plants', '--user', 'kim', '--json'], root);
    expect(second.json.results.map((r: { id: string }) => r.id)).toEqual(first.json.results.map((r: { id: string }) => r.id));
    expect(second.json.results[0].path).toBe('kim/semantic/plant.md');
  });

  it('sees a memory added and then forgotten by other processes, and keeps users apart', async () => {
    const add = await runMem(['add', 'Kim is learning Portuguese for a trip to Porto', '--user', 'kim', '--json'], { root });
    const found = await daemonOn(['search', 'which language is Kim learning', '--user', 'kim', '--json'], root);
    expect(found.json.results[0].id).toBe(add.json.id);
    expect((await daemonOn(['search', 'which language is Kim learning', '--user', 'lee', '--json'], root)).json.results).toEqual([]);
    await runMem(['forget', add.json.id], { root });
    const gone = await daemonOn(['search', 'which language is Kim learning', '--user', 'kim', '--json'], root);
    expect(gone.json.results.map((r: { id: string }) => r.id)).not.toContain(add.json.id);
  });

  it('reports usage errors with the same exit code as in-process', async () => {
    const bad = await daemonOn(['search', 'x', '--user', 'kim', '--type', 'nonsense'], root);
    expect(bad.code).toBe(2);
  });

  it('closes this root with `mem server stop`; the next search still works and opens it again', async () => {
    const stop = await runMem(['server', 'stop', '--json'], { root });
    expect(stop.json.stopped).toContain('memd (this root)');
    // The daemon serves every root of the run: it may keep running for the others, without this one.
    expect((await daemonOn(['server', 'status', '--json'], root)).json.daemon.roots ?? []).not.toContain(root);
    const again = await daemonOn(['search', 'fig tree', '--user', 'kim', '--json'], root);
    expect(again.json.results[0].path).toBe('kim/semantic/plant.md');
    // Let the daemon hold the root again before afterAll stops everything, so nothing outlives the test.
    expect(await waitFor(async () => (await daemonOn(['server', 'status', '--json'], root)).json?.daemon?.roots?.includes(root) === true, 30_000)).toBe(true);
  });
});
