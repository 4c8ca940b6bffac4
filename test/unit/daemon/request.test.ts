// Covers what the search daemon accepts on its socket: the request shape, and only well-typed search inputs.
import { describe, expect, it } from 'vitest';

import { parseRequest, parseSearchInput } from '../../../src/daemon/request.js';

describe('daemon request validation', () => {
  it('accepts a request of the known shape', () => {
    const line = JSON.stringify({ version: 2, configKey: 'abc', op: 'search', root: '/r', input: { query: 'x', user: 'kim' } });
    expect(parseRequest(line)).toEqual({ version: 2, configKey: 'abc', op: 'search', root: '/r', input: { query: 'x', user: 'kim' } });
    expect(parseRequest(JSON.stringify({ version: 2, configKey: 'abc', op: 'release', root: '/r' }))).toMatchObject({ op: 'release', root: '/r' });
    expect(parseRequest(JSON.stringify({ version: 2, configKey: 'abc', op: 'search', root: ['/r'] }))).toHaveProperty('invalid');
  });

  it('rejects what is not JSON, an unknown op and a missing field', () => {
    expect(parseRequest('{not json')).toEqual({ invalid: expect.stringContaining('not JSON') });
    expect(parseRequest(JSON.stringify({ version: 1, configKey: 'abc', op: 'drop' }))).toHaveProperty('invalid');
    expect(parseRequest(JSON.stringify({ version: 1, op: 'ping' }))).toHaveProperty('invalid');
    expect(parseRequest('null')).toHaveProperty('invalid');
  });

  it('accepts the search input `mem search` sends', () => {
    const input = { query: 'fig', user: 'kim', types: ['semantic'], tags: ['a'], k: 8, mode: 'hybrid', fusion: 'rrf', rescore: false, history: true };
    expect(parseSearchInput(input)).toEqual({ search: input });
  });

  it("accepts a prompt hook's context block wish beside its search, and only for a search scoped to a user", () => {
    const context = { tokens: 250, about: 'Stored personal memories.', attributes: { scope: 'personal' } };
    expect(parseSearchInput({ query: 'fig', user: 'kim', k: 5, context })).toEqual({ search: { query: 'fig', user: 'kim', k: 5 }, context });
    expect(parseSearchInput({ query: 'fig', context })).toEqual({ invalid: expect.stringContaining("a block needs the search's user") });
    expect(parseSearchInput({ query: 'fig', user: 'kim', context: { ...context, filter: 'x' } })).toHaveProperty('invalid');
    expect(parseSearchInput({ query: 'fig', user: 'kim', context: { ...context, tokens: -1 } })).toHaveProperty('invalid');
    expect(parseSearchInput({ query: 'fig', user: 'kim', context: { ...context, attributes: { scope: 1 } } })).toHaveProperty('invalid');
  });

  it('rejects a search input with unknown fields, wrong types or unknown memory types', () => {
    expect(parseSearchInput({ query: 'x', user: 'kim', filter: 'user != ""' })).toEqual({ invalid: expect.stringContaining('malformed search request') });
    expect(parseSearchInput({ query: 'x', user: ['kim', 'lee'] })).toEqual({ invalid: expect.stringContaining('user') });
    expect(parseSearchInput({ query: 'x', types: ['secret'] })).toHaveProperty('invalid');
    expect(parseSearchInput({ user: 'kim' })).toHaveProperty('invalid');
    expect(parseSearchInput(undefined)).toHaveProperty('invalid');
  });
});
