// The fast path's parser of `mem search` takes exactly what commander takes, with the same values and defaults,
// and refuses (null: the full CLI runs) everything else.
import { describe, expect, it } from 'vitest';

import { parseSearchArgs } from '../../../src/cli/fast-search.js';
import { buildProgram } from '../../../src/cli/main.js';
import { SEARCH_OPTIONS, namesOf } from '../../../src/cli/search-options.js';

/** What commander hands `mem search`'s handler for these arguments (query and options with the global ones). */
async function commanderParse(args: string[]): Promise<{ query: string; opts: Record<string, unknown> }> {
  let got: { query: string; opts: Record<string, unknown> } | undefined;
  const program = buildProgram(() => async (...a: unknown[]) => {
    const command = a[a.length - 1] as { optsWithGlobals(): Record<string, unknown> };
    got = { query: a[0] as string, opts: command.optsWithGlobals() };
  });
  await program.parseAsync(['node', 'mem', ...args]);
  if (!got) throw new Error('no search ran');
  return got;
}

describe('parseSearchArgs', () => {
  const taken = [
    ['search', 'fig tree'],
    ['search', 'fig tree', '--user', 'kim'],
    ['--root', '/tmp/r', '--json', 'search', '-u', 'kim', 'fig tree'],
    ['search', 'fig', '--root=/tmp/r', '--user=kim', '-k', '3', '--json', '--debug'],
    ['search', 'fig', '--all-users', '--type', 'semantic,episodic', '--tags', 'a,b', '--k', '12'],
    ['search', 'fig', '-u', 'kim', '--mode', 'bm25', '--fusion', 'rrf', '--no-rescore', '--explain', '--history'],
    ['search', 'fig', '-u', 'kim', '--format', 'context', '--budget', '300', '-t', 'semantic'],
    ['search', 'fig', '-u', 'kim', '-u', 'lee', '--format=json'],
    ['--debug', 'search', 'fig', '--mode=dense', '-k', 'nonsense'],
  ];
  it.each(taken)('takes %j as commander does', async (...args) => {
    const fast = parseSearchArgs(args);
    expect(fast).not.toBeNull();
    expect(fast).toEqual(await commanderParse(args));
  });

  // Each name of each declared option, given a valid value: both parsers take it alike (one declaration serves both).
  const everyOption = SEARCH_OPTIONS.flatMap((spec) => {
    const { names, takesValue } = namesOf(spec);
    return names.map((name) => ['search', 'fig', '-u', 'kim', name, ...(takesValue ? [spec.choices?.[1] ?? spec.default ?? '5'] : [])]);
  });
  it('reads every declared option by every name', () => {
    expect(everyOption.length).toBeGreaterThanOrEqual(SEARCH_OPTIONS.length);
  });
  it.each(everyOption)('takes declared option %j as commander does', async (...args) => {
    const fast = parseSearchArgs(args);
    expect(fast).not.toBeNull();
    expect(fast).toEqual(await commanderParse(args));
  });

  const refused = [
    ['status'],
    ['search'],
    ['search', 'a', 'b'],
    ['search', '--help'],
    ['search', 'fig', '-h'],
    ['--version'],
    ['--user', 'kim', 'search', 'fig'],
    ['search', 'fig', '-ukim'],
    ['search', 'fig', '--', '-x'],
    ['search', 'fig', '--user'],
    ['search', 'fig', '--user', '-k'],
    ['search', 'fig', '--mode', 'fuzzy'],
    ['search', 'fig', '--format', 'yaml'],
    ['search', 'fig', '--json=1'],
    ['search', 'fig', '--rescore'],
    ['search', 'fig', '--unknown'],
    ['show', 'search'],
    ['hook', 'claude-code', 'search'],
  ];
  it.each(refused)('leaves %j to the full CLI', (...args) => {
    expect(parseSearchArgs(args)).toBeNull();
  });
});
