// The units of a result's file read back from the file: the rows the index holds while the file is as indexed
// (with the index's file-level fields), nothing once it changed; a search reading them answers as one that asks the index.
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { syncIndex } from '../../../../src/services/core/sync.js';
import type { IndexHit, LineSpan, MemoryFiles } from '../../../../src/services/ports.js';
import { fileUnitsReader } from '../../../../src/services/retrieval/file-units.js';
import { searchMemories } from '../../../../src/services/search.js';
import { DAY_LOG } from '../../../support/day-log.js';
import { InMemoryIndex } from '../../../support/fakes.js';
import { tempRoot } from '../../../support/temp-root.js';
import { unitDeps } from '../../../support/unit-deps.js';

const LOG_PATH = 'alice/episodic/2026-11-30.md';
const LOG = `${DAY_LOG}
# 2026-12-01

- The plumber comes on Tuesday about the kitchen tap
- Alice found the spare key of the garage in the car
`;
const FACT = 'The spare key of the office is in the top drawer.\n';

/** The index's own rows (without the vector and hash), as a search would receive them. */
const rowsOf = (index: InMemoryIndex) => [...index.rows.values()].map(({ textHash: _t, vector: _v, ...r }) => r as IndexHit['record']);

async function indexed() {
  const root = await tempRoot({ [LOG_PATH]: LOG, 'alice/semantic/office-key.md': FACT });
  const index = new InMemoryIndex();
  const deps = unitDeps(root, { index });
  await syncIndex(deps);
  return { root, index, deps };
}

describe('fileUnitsReader', () => {
  it("gives a file's units as the index holds them, in line order, with the row's file-level fields", async () => {
    const { index, deps } = await indexed();
    const rows = rowsOf(index).filter((r) => r.path === LOG_PATH);
    const window = rows.find((r) => r.kind === 'window')!;
    const units = await fileUnitsReader(deps)({ ...window, status: 'superseded' });
    const expected = rows.filter((r) => r.kind === 'unit').sort((a, b) => a.lineStart - b.lineStart);
    expect(units?.map((u) => [u.chunkId, u.heading, u.lineStart, u.lineEnd, u.content])).toEqual(
      expected.map((u) => [u.chunkId, u.heading, u.lineStart, u.lineEnd, u.content]),
    );
    expect(units).toHaveLength(6);
    // The index's status (a link may have set it), not the file's own.
    expect(units!.every((u) => u.kind === 'unit' && u.status === 'superseded' && u.updated === window.updated)).toBe(true);
  });

  it('keeps a parsed file for the next searches of the same memory while its size and mtime stay the same', async () => {
    const { root, index, deps } = await indexed();
    let reads = 0;
    const files: MemoryFiles = { ...deps.files, root: deps.files.root, stat: deps.files.stat.bind(deps.files), read: (p) => (reads++, deps.files.read(p)) };
    const unit = rowsOf(index).find((r) => r.path === LOG_PATH && r.content.includes('flower pot'))!;
    expect(await fileUnitsReader({ ...deps, files })(unit)).toHaveLength(6);
    expect(await fileUnitsReader({ ...deps, files })(unit)).toHaveLength(6);
    expect(reads).toBe(1);
    await writeFile(join(root, LOG_PATH), LOG.replace('- Dentist appointment moved to Friday\n', ''));
    expect(await fileUnitsReader({ ...deps, files })(unit)).toHaveLength(5);
    expect(reads).toBe(2);
  });

  it('answers null once the file no longer holds the row: edited, removed, or not a memory any more', async () => {
    const { root, index, deps } = await indexed();
    const unit = rowsOf(index).find((r) => r.path === LOG_PATH && r.content.includes('flower pot'))!;
    await writeFile(join(root, LOG_PATH), LOG.replace('blue flower pot', 'red flower pot'));
    expect(await fileUnitsReader(deps)(unit)).toBeNull();
    await writeFile(join(root, LOG_PATH), '---\ntype: [unclosed\n---\nbody\n');
    expect(await fileUnitsReader(deps)(unit)).toBeNull();
    await rm(join(root, LOG_PATH));
    expect(await fileUnitsReader(deps)(unit)).toBeNull();
  });
});

describe('search with units read from the files', () => {
  it('finds the same results, excerpts and scores as a search that asks the index, without asking it', async () => {
    const { index, deps } = await indexed();
    const asked: LineSpan[][] = [];
    const unitsWithin = index.unitsWithin.bind(index);
    index.unitsWithin = async (scope, spans, limit) => {
      asked.push(spans);
      return unitsWithin(scope, spans, limit);
    };
    // Files that cannot be read: every expansion and excerpt comes from the index.
    const unreadable: MemoryFiles = {
      ...deps.files,
      root: deps.files.root,
      stat: deps.files.stat.bind(deps.files),
      read: async () => Promise.reject(new Error('EIO')),
    };
    const search = (files: MemoryFiles) => searchMemories({ ...deps, files }, { query: 'where is the spare key', user: 'alice', mode: 'bm25', track: false });

    const fromIndex = await search(unreadable);
    expect(asked.length).toBeGreaterThanOrEqual(2); // the expansion and the excerpts
    asked.length = 0;
    const fromFiles = await search(deps.files);
    expect(asked).toEqual([]);
    expect(fromFiles.length).toBeGreaterThanOrEqual(2);
    expect(fromFiles.map((r) => [r.path, r.lines, r.content, r.score])).toEqual(fromIndex.map((r) => [r.path, r.lines, r.content, r.score]));
    // The excerpt grew past the best unit from its file's neighbours.
    expect(fromFiles.find((r) => r.path === LOG_PATH)!.content).toContain('\n\n- ');
  });
});
