// Covers the session-start hook's use case: which roots it reads, the output the agent adds, the log detail, the budget.
import { rm } from 'node:fs/promises';

import { afterEach, describe, expect, it } from 'vitest';

import { FsMemoryFiles } from '../../../../src/adapters/files/fs-memory-files.js';
import { sessionStartContext, type SessionStartInput } from '../../../../src/services/capture/session-start.js';
import type { MemoryFiles } from '../../../../src/services/ports.js';
import { tempRoot } from '../../../support/temp-root.js';

const memo = (id: string, body: string) =>
  `---\nid: '${id}'\nuser: 'ann'\ntype: 'semantic'\nstatus: 'active'\nimportance: 0.5\ncreated: '2026-11-01T00:00:00Z'\nupdated: '2026-11-01T00:00:00Z'\n---\n${body}\n`;

describe('sessionStartContext', () => {
  const roots: string[] = [];
  afterEach(async () => {
    for (const r of roots.splice(0)) await rm(r, { recursive: true, force: true });
  });

  async function setUp() {
    const project = await tempRoot({ 'ann/semantic/pm.md': memo('pm', 'The shop uses bun.') }, 'memdir-start-');
    const personal = await tempRoot(
      { 'ann/semantic/tea.md': memo('tea', 'Ann drinks tea with token sk-abcdefghijklmnopqrstuvwxyz0123456789.') },
      'memdir-start-',
    );
    roots.push(project, personal);
    const read: string[] = [];
    const filesOf = (root: string): Promise<MemoryFiles> => (read.push(root), Promise.resolve(new FsMemoryFiles(root)));
    const input: SessionStartInput = {
      projectRoot: project,
      projectName: 'shop',
      personalRoot: personal,
      defaultUser: 'default',
      user: 'ann',
      contextTokens: 2000,
      ms: 2000,
    };
    return { project, personal, read, filesOf, input };
  }

  it("reads the project's memory and the person's, answers with the context and counts them", async () => {
    const { project, personal, read, filesOf, input } = await setUp();
    const outcome = await sessionStartContext(filesOf, input);
    expect(read).toEqual([project, personal]);
    const out = outcome.output as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    expect(out.hookSpecificOutput.hookEventName).toBe('SessionStart');
    expect(out.hookSpecificOutput.additionalContext).toContain('The shop uses bun.');
    expect(out.hookSpecificOutput.additionalContext).toContain('Ann drinks tea');
    expect(out.hookSpecificOutput.additionalContext).not.toContain('sk-abcdefghijklmnopqrstuvwxyz0123456789');
    expect(outcome.detail).toMatch(/^injected \d+ \w+/);
  });

  it('reads the personal memory alone without a project, and says why', async () => {
    const { personal, read, filesOf, input } = await setUp();
    const outcome = await sessionStartContext(filesOf, { ...input, projectRoot: personal, noProject: '"/tmp" is not in a git work tree' });
    expect(read).toEqual([personal]);
    expect(outcome.detail).toMatch(/^"\/tmp" is not in a git work tree; injected /);
  });

  it('reads a root once when the project memory is the personal one; no memories, no output', async () => {
    const { read, input } = await setUp();
    const empty = await tempRoot({}, 'memdir-start-');
    roots.push(empty);
    const filesOf = (root: string): Promise<MemoryFiles> => (read.push(root), Promise.resolve(new FsMemoryFiles(root)));
    const outcome = await sessionStartContext(filesOf, { ...input, projectRoot: empty, personalRoot: empty });
    expect(read).toEqual([empty]);
    expect(outcome).toEqual({ output: undefined, detail: 'injected no memories' });
  });

  it('gives up at the end of the budget with no context', async () => {
    const { input } = await setUp();
    const stuck = { scan: () => new Promise(() => undefined) } as unknown as MemoryFiles;
    const outcome = await sessionStartContext(() => Promise.resolve(stuck), { ...input, ms: 50 });
    expect(outcome).toEqual({
      output: undefined,
      error: 'the memory files could not be read within the time budget: no context this session',
      hint: 'a very large root or a slow disk; `mem status` shows its size',
    });
  });
});
