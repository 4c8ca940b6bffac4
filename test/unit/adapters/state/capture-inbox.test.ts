// Hook inputs held for the background capture: owner-only files in an owner-only folder, old ones listed, released.
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { CaptureInbox } from '../../../../src/adapters/state/capture-inbox.js';
import { tempRoot } from '../../../support/temp-root.js';

const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((r) => rm(r, { recursive: true, force: true })));
});

describe('CaptureInbox', () => {
  it('holds inputs in owner-only files in an owner-only folder, lists the old ones, releases them', async () => {
    const root = await tempRoot();
    roots.push(root);
    const inbox = new CaptureInbox(join(root, 'inbox'));
    const file = await inbox.hold('{"prompt":"hello"}');
    expect((await stat(join(root, 'inbox'))).mode & 0o777).toBe(0o700);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await inbox.held(60_000)).toEqual([]);
    expect(await inbox.held(0)).toEqual([file]);
    await inbox.release(file);
    expect(await readdir(join(root, 'inbox'))).toEqual([]);
  });
});
