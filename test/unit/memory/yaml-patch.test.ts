// Covers patches/js-yaml+3.15.2.patch (applied by `npm install` through patch-package): gray-matter's js-yaml loads
// neither esprima (for a !!js/function type front matter never holds) nor its dumper until a dump, and both still work.
import { createRequire } from 'node:module';

import { describe, expect, it } from 'vitest';

// Required, not imported: gray-matter and js-yaml are CommonJS, and what they load shows in require's cache.
const require = createRequire(import.meta.url);
const loaded = (part: string) => Object.keys(require.cache).filter((path) => path.includes(part));

describe('the patched js-yaml', () => {
  it('reads front matter without loading esprima or the dumper, and loads each when it is needed', () => {
    const matter = require('gray-matter') as typeof import('gray-matter');
    expect(matter('---\ntags: [a, b]\ncreated: 2026-12-01\n---\nbody\n', {}).data).toEqual({ tags: ['a', 'b'], created: new Date('2026-12-01T00:00:00Z') });
    expect(loaded('/esprima/')).toEqual([]);
    expect(loaded('/js-yaml/lib/js-yaml/dumper')).toEqual([]);
    expect(matter.stringify('body\n', { tags: ['a'] })).toBe('---\ntags:\n  - a\n---\nbody\n');
    expect(loaded('/js-yaml/lib/js-yaml/dumper')).toHaveLength(1);
    const yaml = require('js-yaml') as { load(text: string): unknown };
    const fn = yaml.load('!!js/function "function (a) { return a + 1; }"') as (a: number) => number;
    expect(fn(1)).toBe(2);
    expect(loaded('/esprima/')).toHaveLength(1);
  });
});
