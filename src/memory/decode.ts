// Turns a file's bytes into text, or says by line why it is not a readable Markdown file.
import { InvalidMemoryError } from '../errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

function lineOfOffset(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < bytes.length; i++) if (bytes[i] === 0x0a) line++;
  return line;
}

function firstInvalidUtf8(bytes: Uint8Array): number {
  // Bisect on a streaming fatal decoder: lo is a prefix that decodes, hi the shortest that fails
  // (or the whole file, when only a sequence cut off at the end is wrong).
  let lo = 0;
  let hi = bytes.length;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, mid), { stream: true });
      lo = mid;
    } catch {
      hi = mid;
    }
  }
  return hi - 1;
}

/** Decodes UTF-8 (BOM stripped, CRLF normalised to LF); rejects binary files and invalid UTF-8. */
export function decodeMemoryText(bytes: Uint8Array, path: string): string {
  const nul = bytes.indexOf(0);
  if (nul !== -1) {
    throw new InvalidMemoryError(path, lineOfOffset(bytes, nul), 'binary content (NUL byte): not a text file');
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    const at = firstInvalidUtf8(bytes);
    throw new InvalidMemoryError(path, lineOfOffset(bytes, at), 'invalid UTF-8');
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return text.replace(/\r\n?/g, '\n');
}
