// Covers addMemory's undo: when indexing or committing fails, the files are as they were before the add; and a keyed
// add sees a memory of its key written by hand since the last sync.
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { IndexUnavailableError, InvalidMemoryError } from '../../../src/errors.js';
import { FsMemoryFiles } from '../../../src/adapters/files/fs-memory-files.js';
import { addMemory } from '../../../src/services/add.js';
import { InMemoryIndex } from '../../support/fakes.js';
import { tempRoot } from '../../support/temp-root.js';
import { unitDeps } from '../../support/unit-deps.js';

const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((r) => rm(r, { recursive: true, force: true })));
});

/** An index that fails its next upsert, as a dead Milvus would. */
class FailingIndex extends InMemoryIndex {
  failNext = false;
  override async upsert(rows: Parameters<InMemoryIndex['upsert']>[0]): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      throw new IndexUnavailableError('Milvus went away');
    }
    return super.upsert(rows);
  }
}

describe('addMemory when indexing fails', () => {
  it('removes the new file of an ADD and restores the old file of a SUPERSEDE byte for byte', async () => {
    const root = await tempRoot();
    roots.push(root);
    const index = new FailingIndex();
    const deps = unitDeps(root, { index });
    const first = await addMemory(deps, { text: 'Alice lives in Munich', user: 'alice', key: 'residence' });
    const before = await readFile(join(root, first.path));

    index.failNext = true;
    await expect(addMemory(deps, { text: 'Alice moved to Berlin', user: 'alice', key: 'residence' })).rejects.toThrow(/Milvus went away/);
    expect(await readdir(join(root, 'alice', 'semantic'))).toEqual([first.path.split('/').pop()]);
    expect(Buffer.compare(await readFile(join(root, first.path)), before)).toBe(0);

    // A retry is a normal correction, not a duplicate.
    const retry = await addMemory(deps, { text: 'Alice moved to Berlin', user: 'alice', key: 'residence' });
    expect(retry).toMatchObject({ action: 'SUPERSEDE', supersedes: first.id });
    expect(await readdir(join(root, 'alice', 'semantic'))).toHaveLength(2);
  });

  it('a write refused (a read-only folder) leaves no file and no record of a killed write behind', async () => {
    const root = await tempRoot();
    roots.push(root);
    const deps = unitDeps(root);
    const first = await addMemory(deps, { text: 'Alice lives in Munich', user: 'alice', key: 'residence' });
    const before = await readFile(join(root, first.path));
    class RefusingFiles extends FsMemoryFiles {
      // The old file's rewrite is refused after the new file was written, as in a folder the user cannot write.
      override async write(path: string, text: string): Promise<void> {
        if (path === first.path) throw Object.assign(new Error(`EACCES: permission denied, open '${path}'`), { code: 'EACCES' });
        return super.write(path, text);
      }
    }
    deps.files = new RefusingFiles(root);
    await expect(addMemory(deps, { text: 'Alice moved to Berlin', user: 'alice', key: 'residence' })).rejects.toThrow(/permission denied/);
    expect(await readdir(join(root, 'alice', 'semantic'))).toEqual([first.path.split('/').pop()]);
    expect(Buffer.compare(await readFile(join(root, first.path)), before)).toBe(0);
    expect(await deps.journal.pending()).toBeNull();
  });
});

describe('sync records lifecycle links in the manifest', () => {
  it('keeps key, source, supersedes and sources of every file', async () => {
    const root = await tempRoot({
      'alice/semantic/old.md': '---\nkey: residence\nsource: system:crm\ncreated: 2026-01-02T00:00:00Z\n---\nLives in Munich\n',
      'alice/semantic/summary.md': '---\nsupersedes: old\nsources: [a, b]\n---\nSummary\n',
    });
    roots.push(root);
    const deps = unitDeps(root);
    const { syncIndex } = await import('../../../src/services/core/sync.js');
    await syncIndex(deps);
    const manifest = (await deps.manifest.load())!;
    expect(manifest.get('alice/semantic/old.md')).toMatchObject({ key: 'residence', source: 'system:crm' });
    expect(manifest.get('alice/semantic/summary.md')).toMatchObject({ supersedes: 'old', sources: ['a', 'b'] });
  });
});

describe('addMemory when the file it wrote does not index', () => {
  it('fails as an invalid memory (exit 1, not a usage error) naming the file, and leaves no file behind', async () => {
    const root = await tempRoot();
    roots.push(root);
    const deps = unitDeps(root, { maxFileBytes: 200 });
    const err = await addMemory(deps, { text: 'Alice keeps a long note. '.repeat(20), user: 'alice' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidMemoryError);
    expect((err as InvalidMemoryError).exitCode).toBe(1);
    expect((err as InvalidMemoryError).message).toMatch(/^alice\/semantic\/.+\.md:1: file is .* over the .* limit/);
    expect(await readdir(join(root, 'alice', 'semantic')).catch(() => [])).toEqual([]);
  });
});

describe('addMemory with a key', () => {
  it('supersedes a memory of that key written by hand since the last sync, instead of adding a second value', async () => {
    const root = await tempRoot();
    roots.push(root);
    const deps = unitDeps(root);
    await addMemory(deps, { text: 'Alice has a green bicycle', user: 'alice' });
    // Written by hand after the root was indexed, no sync since (no mem reindex, no mem watch).
    await writeFile(join(root, 'alice/semantic/pet.md'), '---\nid: pet\nkey: pet\n---\nAlice has a cat.\n');
    const added = await addMemory(deps, { text: 'Alice has a dog named Rex', user: 'alice', key: 'pet' });
    expect(added).toMatchObject({ action: 'SUPERSEDE', supersedes: 'pet' });
  });

  it('an add without a key sees a near-duplicate written by hand since the last sync (its folder, files newer than the manifest)', async () => {
    const root = await tempRoot();
    roots.push(root);
    const deps = unitDeps(root);
    await addMemory(deps, { text: 'Alice has a green bicycle', user: 'alice' });
    await new Promise((r) => setTimeout(r, 20)); // a hand edit lands after the manifest's last save
    await writeFile(join(root, 'alice/semantic/tea.md'), '---\nid: tea\n---\nAlice drinks green tea every morning.\n');
    const added = await addMemory(deps, { text: 'Alice drinks green tea every morning.', user: 'alice' });
    expect(added).toMatchObject({ action: 'NOOP', id: 'tea' });
    expect(await readdir(join(root, 'alice/semantic'))).toHaveLength(2);
  });
});
