// Covers doctor: each kind of disagreement between files, manifest and index is found, named and (with fix) repaired;
// without fix nothing changes; what needs a person (an invalid file) is reported, not "fixed".
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { doctor, type DoctorProblem } from '../../../src/services/doctor.js';
import { syncIndex } from '../../../src/services/core/sync.js';
import { HashEmbedder, InMemoryIndex } from '../../support/fakes.js';
import { recordingAudit } from '../../support/unit-deps.js';
import { edit, setup, snapshot, type Setup } from '../../support/sync-fixture.js';

const TREE = {
  'alice/semantic/tea.md': 'Alice likes green tea in the morning.\n\nShe is allergic to peanuts and also to shellfish, since childhood.\n',
  'bob/episodic/trip.md': '# Trip to Porto\n\nWe took the train on Monday morning, early.\n',
  'notes.md': 'A root note without a user folder.\n',
};

async function synced(): Promise<Setup> {
  const s = await setup(TREE);
  expect((await syncIndex(s.deps)).errors).toEqual([]);
  return s;
}

const kinds = (problems: DoctorProblem[]) => problems.map((p) => `${p.kind} ${p.path ?? ''}`.trim()).sort();

async function state(s: Setup) {
  return { rows: [...s.index.rows.keys()].sort(), manifest: await s.deps.manifest.load(), files: await snapshot(s.root) };
}

describe('doctor', () => {
  it('finds nothing wrong after a sync', async () => {
    const s = await synced();
    expect(await doctor(s.deps)).toEqual({ ok: true, files: 3, manifestEntries: 3, indexRows: 4, problems: [], repaired: [] });
  });

  it('finds rows the index lost, stale rows, orphaned rows, and repairs them', async () => {
    const s = await synced();
    const [lost] = s.index.rowsOf('alice/semantic/tea.md');
    s.index.rows.delete(lost!.chunkId);
    const trip = s.index.rowsOf('bob/episodic/trip.md')[0]!;
    s.index.rows.set('f'.repeat(32), { ...trip, chunkId: 'f'.repeat(32), content: 'an old version' });
    s.index.rows.set('e'.repeat(32), { ...trip, chunkId: 'e'.repeat(32), path: 'gone/old.md' });

    const before = await state(s);
    const found = await doctor(s.deps);
    expect(found.ok).toBe(false);
    expect(kinds(found.problems)).toEqual(['missing-rows alice/semantic/tea.md', 'orphaned-rows gone/old.md', 'stale-rows bob/episodic/trip.md']);
    expect(found.problems.find((p) => p.kind === 'missing-rows')!.detail).toBe('1 of 2 chunks are not in the index');
    expect(found.problems.every((p) => p.fixable)).toBe(true);
    expect(await state(s)).toEqual(before); // diagnosis alone changes nothing

    const fixed = await doctor(s.deps, { fix: true });
    expect(fixed).toMatchObject({ ok: true, problems: [], indexRows: 4 });
    expect(kinds(fixed.repaired)).toEqual(kinds(found.problems));
    expect(s.index.rows.has(lost!.chunkId)).toBe(true);
    expect(await s.index.listPaths()).not.toContain('gone/old.md');
    expect(await snapshot(s.root)).toEqual(before.files);
  });

  it('finds files edited, added and deleted since the last sync, and syncs them', async () => {
    const s = await synced();
    await edit(s.root, 'notes.md', 'The root note, edited by hand.\n');
    await edit(s.root, 'alice/semantic/new.md', 'A new memory nobody indexed.\n');
    await unlink(join(s.root, 'bob/episodic/trip.md'));

    const found = await doctor(s.deps);
    expect(kinds(found.problems)).toEqual([
      'changed notes.md',
      'deleted bob/episodic/trip.md',
      'missing-rows alice/semantic/new.md',
      'missing-rows notes.md',
      'orphaned-rows bob/episodic/trip.md',
      'stale-rows notes.md',
      'unindexed alice/semantic/new.md',
    ]);
    const fixed = await doctor(s.deps, { fix: true });
    expect(fixed.ok).toBe(true);
    expect(s.index.rowsOf('notes.md').map((r) => r.content)).toEqual(['The root note, edited by hand.']);
    expect(s.index.rowsOf('bob/episodic/trip.md')).toEqual([]);
  });

  it('rebuilds when the manifest is lost', async () => {
    const s = await synced();
    await s.deps.manifest.clear();
    const found = await doctor(s.deps);
    expect(kinds(found.problems)).toEqual(['unindexed alice/semantic/tea.md', 'unindexed bob/episodic/trip.md', 'unindexed notes.md']);
    expect((await doctor(s.deps, { fix: true })).ok).toBe(true);
    expect([...(await s.deps.manifest.load())!.keys()].sort()).toEqual(Object.keys(TREE).sort());
  });

  it('reports an index built with another model, and rebuilds it with --fix', async () => {
    const s = await synced();
    const other = { ...s.deps, embedder: new HashEmbedder(8, 'another-model') };
    const found = await doctor(other);
    expect(found.problems).toEqual([{ kind: 'model-mismatch', detail: expect.stringMatching(/hash-test/), fixable: true }]);
    const fixed = await doctor(other, { fix: true });
    expect(fixed).toMatchObject({ ok: true, indexRows: 4, repaired: [{ kind: 'model-mismatch' }] });
    expect((s.index as InMemoryIndex).model).toEqual({ name: 'another-model', dimension: 8 });
  });

  it('reports an invalid file as needing a person, keeps its last good rows, and still exits not ok after --fix', async () => {
    const s = await synced();
    const good = s.index.rowsOf('alice/semantic/tea.md').map((r) => r.chunkId);
    await edit(s.root, 'alice/semantic/tea.md', '---\nimportance: high\n---\nbroken\n');
    const found = await doctor(s.deps, { fix: true });
    expect(found.ok).toBe(false);
    expect(found.problems).toEqual([
      { kind: 'invalid-file', path: 'alice/semantic/tea.md', line: 2, detail: expect.stringMatching(/importance/), fixable: false },
    ]);
    expect(s.index.rowsOf('alice/semantic/tea.md').map((r) => r.chunkId)).toEqual(good);
  });

  it('reports a memory file git ignores (outside the audit trail) as needing a person; --fix never commits it', async () => {
    const s = await synced();
    const audit = recordingAudit();
    audit.ignored = async () => ['alice/semantic/tea.md'];
    s.deps.audit = audit;
    const found = await doctor(s.deps, { fix: true });
    expect(found.ok).toBe(false);
    expect(found.problems).toEqual([
      {
        kind: 'ignored',
        path: 'alice/semantic/tea.md',
        detail: expect.stringMatching(/ignored by git.*never committed.*git check-ignore -v alice\/semantic\/tea\.md/),
        fixable: false,
      },
    ]);
    expect(found.repaired).toEqual([]);
    expect(audit.commits).toEqual([]);
  });

  it('reports files the scan could not use (symlink loops) and files over the size limit', async () => {
    const s = await setup(TREE, { maxFileBytes: 64 });
    await syncIndex(s.deps);
    const found = await doctor(s.deps);
    expect(found.problems).toEqual([
      { kind: 'invalid-file', path: 'alice/semantic/tea.md', line: 1, detail: expect.stringMatching(/over the 64-byte \(0\.0 MB\) limit/), fixable: false },
    ]);
  });

  it('reports two active corrections of one memory (both stay active) by path and line, with the fix', async () => {
    const s = await synced();
    await edit(s.root, 'alice/semantic/oslo.md', '---\nid: oslo\nsupersedes: alice/semantic/tea\n---\nAlice moved to Oslo.\n');
    await edit(s.root, 'alice/semantic/rome.md', '---\nid: rome\nsupersedes: [alice/semantic/tea]\n---\nAlice moved to Rome.\n');
    await syncIndex(s.deps);
    const report = await doctor(s.deps);
    expect(report.problems.map((p) => [p.kind, p.path, p.line, p.fixable])).toEqual([
      ['rival-corrections', 'alice/semantic/oslo.md', 3, false],
      ['rival-corrections', 'alice/semantic/rome.md', 3, false],
    ]);
    expect(report.problems[0]!.detail).toMatch(/alice\/semantic\/tea.*also rome \(alice\/semantic\/rome\.md\).*supersedes: \[alice\/semantic\/tea, rome\]/);
    // Once the newer names the older too, one correction is left active: nothing to report.
    await edit(s.root, 'alice/semantic/rome.md', '---\nid: rome\nsupersedes: [alice/semantic/tea, oslo]\n---\nAlice moved to Rome.\n');
    await syncIndex(s.deps);
    expect((await doctor(s.deps)).problems).toEqual([]);
  });

  it('reports every lifecycle link problem by path and line, and repairs a status the index lost', async () => {
    const s = await synced();
    await edit(s.root, 'alice/semantic/fix.md', '---\nid: fix\nsupersedes: alice/semantic/tea\n---\nAlice switched to coffee.\n');
    await edit(s.root, 'alice/semantic/bad.md', '---\nid: bad\nsupersedes: [nothing, bob/episodic/trip]\n---\nA bad link.\n');
    await edit(s.root, 'alice/semantic/lonely.md', '---\nid: lonely\nstatus: superseded\n---\nNothing replaced me.\n');
    await syncIndex(s.deps);
    // A status the rows lost (as if written back by an older memdir): the manifest and rows say active again.
    const manifest = (await s.deps.manifest.load())!;
    manifest.set('alice/semantic/tea.md', { ...manifest.get('alice/semantic/tea.md')!, status: 'active', fileStatus: undefined });
    await s.deps.manifest.save(manifest);
    for (const r of s.index.rowsOf('alice/semantic/tea.md')) s.index.rows.set(r.chunkId, { ...r, status: 'active' });

    const report = await doctor(s.deps);
    expect(report.problems.map((p) => [p.kind, p.path, p.line, p.fixable])).toEqual([
      ['dangling-link', 'alice/semantic/bad.md', 3, false],
      ['cross-user-link', 'alice/semantic/bad.md', 3, false],
      ['no-successor', 'alice/semantic/lonely.md', 3, false],
      ['stale-status', 'alice/semantic/tea.md', undefined, true],
    ]);
    const fixed = await doctor(s.deps, { fix: true });
    expect(kinds(fixed.repaired)).toEqual(['stale-status alice/semantic/tea.md']);
    expect(s.index.rowsOf('alice/semantic/tea.md').map((r) => r.status)).toEqual(['superseded', 'superseded']);
    expect(kinds(fixed.problems)).toEqual([
      'cross-user-link alice/semantic/bad.md',
      'dangling-link alice/semantic/bad.md',
      'no-successor alice/semantic/lonely.md',
    ]);
  });
});
