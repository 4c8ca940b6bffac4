// Covers formatShow: what `mem show` prints, here the status of a memory whose expiry has passed before `mem gc` ran.
import { describe, expect, it } from 'vitest';

import { formatShow } from '../../../../src/cli/commands/show.js';
import type { ShowResult } from '../../../../src/services/show.js';

const shown = (expires: string | null): ShowResult => ({
  memory: {
    id: 'permit',
    path: 'ann/semantic/permit.md',
    user: 'ann',
    type: 'semantic',
    status: 'active',
    importance: 0.5,
    created: '2019-06-01T00:00:00.000Z',
    updated: '2019-06-01T00:00:00.000Z',
    expires,
    key: null,
    source: null,
    supersedes: null,
    superseded_by: null,
    consolidated_into: null,
    sources: null,
    tags: [],
    confidence: null,
    content: 'Ann has a parking permit.',
  } as unknown as ShowResult['memory'],
  chain: [],
  sources: [],
  history: [],
});

describe('formatShow', () => {
  const at = new Date('2026-12-01T12:00:00.000Z');
  it('says that an active memory past its expiry is out of search until gc marks it', () => {
    const text = formatShow(shown('2020-01-01T00:00:00.000Z'), at);
    expect(text).toContain('  status: active (expired 2020-01-01T00:00:00.000Z: no longer searched; `mem gc` marks the file)\n');
  });

  it('prints the status as the file says it otherwise', () => {
    expect(formatShow(shown('2027-01-01T00:00:00.000Z'), at)).toContain('  status: active\n');
    expect(formatShow(shown(null), at)).toContain('  status: active\n');
  });
});
