// Covers decodeMemoryText: BOM stripping, newline normalisation, and binary / invalid UTF-8 rejection with the line.
import { describe, expect, it } from 'vitest';

import { InvalidMemoryError } from '../../../src/errors.js';
import { decodeMemoryText } from '../../../src/memory/decode.js';
import { thrown } from '../../support/thrown.js';

const enc = (s: string) => new TextEncoder().encode(s);
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

function decodeError(bytes: Uint8Array, path = 'a/b.md'): InvalidMemoryError {
  return thrown(() => decodeMemoryText(bytes, path), InvalidMemoryError);
}

describe('decodeMemoryText', () => {
  it('decodes plain UTF-8 unchanged, including non-ASCII text', () => {
    expect(decodeMemoryText(enc('# Café\n\n喜欢喝茶 🍵\n'), 'x.md')).toBe('# Café\n\n喜欢喝茶 🍵\n');
  });

  it('strips a leading byte order mark', () => {
    const bytes = concat(new Uint8Array([0xef, 0xbb, 0xbf]), enc('---\nid: x\n---\nbody'));
    const text = decodeMemoryText(bytes, 'x.md');
    expect(text).toBe('---\nid: x\n---\nbody');
    expect(text.charCodeAt(0)).toBe(0x2d);
  });

  it('keeps a U+FEFF that is not at the start', () => {
    expect(decodeMemoryText(enc('a\uFEFFb'), 'x.md')).toBe('a\uFEFFb');
  });

  it('normalises CRLF and lone CR to LF', () => {
    expect(decodeMemoryText(enc('a\r\nb\r\n\r\nc\rd'), 'x.md')).toBe('a\nb\n\nc\nd');
  });

  it('returns an empty string for an empty file', () => {
    expect(decodeMemoryText(new Uint8Array(), 'x.md')).toBe('');
  });

  it('rejects a NUL byte as binary content, naming the file and its line', () => {
    const err = decodeError(enc('line one\nline two\nbad \u0000 here\n'), 'alice/notes.md');
    expect(err.path).toBe('alice/notes.md');
    expect(err.line).toBe(3);
    expect(err.reason).toMatch(/binary|NUL/i);
    expect(err.message).toBe(`alice/notes.md:3: ${err.reason}`);
  });

  it('reports a NUL on the first line as line 1', () => {
    expect(decodeError(new Uint8Array([0x00, 0x61])).line).toBe(1);
  });

  it('rejects invalid UTF-8 and names the line of the bad byte', () => {
    const bytes = concat(enc('first\nsecond\nthird '), new Uint8Array([0xff, 0xfe]), enc(' rest\nfifth\n'));
    const err = decodeError(bytes, 'bob/x.md');
    expect(err.path).toBe('bob/x.md');
    expect(err.line).toBe(3);
    expect(err.reason).toMatch(/UTF-8/);
  });

  it('finds the line of invalid UTF-8 deep in a long file', () => {
    const lines = Array.from({ length: 500 }, (_, i) => `line ${i + 1} with some text ü`);
    const before = enc(`${lines.slice(0, 399).join('\n')}\n`);
    const bytes = concat(before, enc('line 400 '), new Uint8Array([0xc3]), enc(`\n${lines.slice(400).join('\n')}`));
    expect(decodeError(bytes).line).toBe(400);
  });

  it('names the line of an invalid byte that directly follows a newline', () => {
    // The bad byte is the first byte of line 2; the error must not point at line 1.
    const err = decodeError(concat(enc('first line\n'), new Uint8Array([0xff]), enc('rest')));
    expect(err.line).toBe(2);
  });

  it('rejects a truncated multi-byte sequence at the end of the file', () => {
    const bytes = concat(enc('ok\nalso ok\n'), new Uint8Array([0xe4, 0xb8]));
    const err = decodeError(bytes);
    expect(err.line).toBe(3);
    expect(err.reason).toMatch(/UTF-8/);
  });

  it('rejects an overlong encoding', () => {
    // 0xC0 0xAF is an overlong "/": never valid UTF-8.
    expect(decodeError(concat(enc('x\n'), new Uint8Array([0xc0, 0xaf]))).line).toBe(2);
  });
});
