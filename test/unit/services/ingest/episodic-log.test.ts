// The session fingerprint: the same transcript is recognised whatever the case its speakers were stored in.
import { describe, expect, it } from 'vitest';

import { transcriptHash } from '../../../../src/services/ingest/episodic-log.js';

describe('transcriptHash', () => {
  it('is the same for roles in any case (a log written before names kept their case), and differs with the text', () => {
    const named = [
      { role: 'Caroline', content: 'I went to the support group.' },
      { role: 'assistant', content: 'How was it?' },
    ];
    const lower = named.map((t) => ({ ...t, role: t.role.toLowerCase() }));
    expect(transcriptHash(named)).toBe(transcriptHash(lower));
    expect(transcriptHash(named)).toMatch(/^[0-9a-f]{16}$/);
    expect(transcriptHash([{ ...named[0]!, content: 'I went to the library.' }, named[1]!])).not.toBe(transcriptHash(named));
  });
});
