// Covers conflictMarkerLine: the markers git leaves in a file it could not merge, and what is not one.
import { describe, expect, it } from 'vitest';

import { conflictMarkerLine } from '../../../src/memory/conflict.js';

describe('conflictMarkerLine', () => {
  it('names the line of the <<<<<<< of a complete block, in the body or the front matter', () => {
    expect(conflictMarkerLine('---\nid: a\n---\n<<<<<<< HEAD\nParis\n=======\nHamburg\n>>>>>>> other\n')).toBe(4);
    expect(conflictMarkerLine('---\n<<<<<<< HEAD\nid: a\n=======\nid: b\n>>>>>>> 1a2b3c (note)\n---\ntext\n')).toBe(2);
    expect(conflictMarkerLine('text\r\n<<<<<<< Updated upstream\r\nx\r\n=======\r\ny\r\n>>>>>>> Stashed changes\r\n')).toBe(2);
    // diff3 style: the base section between ||||||| and ======= changes nothing.
    expect(conflictMarkerLine('<<<<<<< ours\nx\n||||||| base\nw\n=======\ny\n>>>>>>> theirs\n')).toBe(1);
  });

  it('takes no incomplete block, marker-like text inside a line, or a block shown in a code fence for one', () => {
    expect(conflictMarkerLine('plain text\n')).toBeUndefined();
    expect(conflictMarkerLine('<<<<<<< HEAD\nonly the start\n')).toBeUndefined();
    expect(conflictMarkerLine('a heading\n=======\n\nmore\n>>>>>>> not a block\n')).toBeUndefined();
    expect(conflictMarkerLine('say <<<<<<< HEAD then\n=======\n>>>>>>> x\n')).toBeUndefined();
    expect(conflictMarkerLine('How to resolve:\n\n```\n<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> branch\n```\n')).toBeUndefined();
    expect(conflictMarkerLine('~~~text\n<<<<<<< a\n=======\n>>>>>>> b\n~~~\n')).toBeUndefined();
  });
});
