// Covers transcript parsing: JSON turns (array or {messages}), Markdown turns (role lines, bold roles,
// role headings, timestamps, multi-line turns), and errors that name the file and line.
import { describe, expect, it } from 'vitest';

import { UsageError } from '../../../../src/errors.js';
import { parseTranscript } from '../../../../src/services/ingest/transcript.js';
import { thrown } from '../../../support/thrown.js';

describe('parseTranscript', () => {
  it('reads a JSON array of turns; chat roles are lower-cased, times normalised, empty turns dropped', () => {
    const text = JSON.stringify([
      { role: 'User', content: ' I moved to Berlin. ', time: '2026-11-30T09:15:00+01:00' },
      { role: 'assistant', content: '' },
      { role: 'assistant', content: 'Welcome to Berlin!' },
    ]);
    expect(parseTranscript(text, 'chat.json')).toEqual([
      { role: 'user', content: 'I moved to Berlin.', time: '2026-11-30T08:15:00.000Z' },
      { role: 'assistant', content: 'Welcome to Berlin!' },
    ]);
    expect(parseTranscript(JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }), 'c.json')).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('reads a turn time written as timestamp or created_at (common in chat exports), time first; a bad one is an error', () => {
    const text = JSON.stringify([
      { role: 'user', content: 'I got back from Kyoto.', timestamp: '2026-11-28T10:00:00Z' },
      { role: 'assistant', content: 'How was it?', created_at: '2026-11-28T10:00:10Z' },
      { role: 'user', content: 'Great.', time: '2026-11-28T10:01:00Z', timestamp: '2020-01-01T00:00:00Z' },
    ]);
    expect(parseTranscript(text, 'chat.json').map((t) => t.time)).toEqual(['2026-11-28T10:00:00.000Z', '2026-11-28T10:00:10.000Z', '2026-11-28T10:01:00.000Z']);
    const bad = thrown(() => parseTranscript('[{"role": "user", "content": "a", "timestamp": "last week"}]', 'chat.json'), UsageError);
    expect(bad.message).toContain('turn 1 (timestamp): not a date');
  });

  it("a speaker's name keeps its case (the model reads names), the usual chat roles are one role in any case", () => {
    const json = JSON.stringify([
      { role: 'Caroline', content: 'I went to the support group.' },
      { role: 'ASSISTANT', content: 'How was it?' },
      { role: 'Mel', content: 'Tell me more!' },
    ]);
    expect(parseTranscript(json, 'chat.json').map((t) => t.role)).toEqual(['Caroline', 'assistant', 'Mel']);
    expect(parseTranscript('User: hi\n\n## ASSISTANT\n\nhey\n', 'chat.md').map((t) => t.role)).toEqual(['user', 'assistant']);
  });

  it('JSON errors name the file and the line, or the turn', () => {
    const bad = thrown(() => parseTranscript('[\n  {"role": "user", "content": "a"},\n  {"role": "user" "content": "b"}\n]', 'chat.json'), UsageError);
    expect(bad.message).toMatch(/^chat\.json:3: not valid JSON/);
    const shape = thrown(() => parseTranscript('[{"role": "user", "content": "a"}, {"role": "user", "content": 7}]', 'chat.json'), UsageError);
    expect(shape.message).toMatch(/^chat\.json: turn 2 \(content\): .*expected an array of/);
    const time = thrown(() => parseTranscript('[{"role": "user", "content": "a", "time": "yesterday"}]', 'chat.json'), UsageError);
    expect(time.message).toContain('turn 1 (time): not a date');
    expect(thrown(() => parseTranscript('{"turns": []}', 'c.json'), UsageError).message).toContain('c.json: top level');
  });

  it('reads Markdown role lines, bold roles, headings, timestamps and multi-line turns', () => {
    const md = [
      '# Chat with the assistant',
      '',
      '[2026-12-01T10:00:00Z] user: I am vegetarian.',
      'Note: no fish either.',
      '**Assistant:** Noted!',
      '',
      '## User (2026-12-01T10:05:00Z)',
      'Book the Italian place.',
      '',
      '__assistant__: Done.',
    ].join('\n');
    expect(parseTranscript(md, 'chat.md')).toEqual([
      { role: 'user', content: 'I am vegetarian.\nNote: no fish either.', time: '2026-12-01T10:00:00.000Z' },
      { role: 'assistant', content: 'Noted!' },
      { role: 'user', content: 'Book the Italian place.', time: '2026-12-01T10:05:00.000Z' },
      { role: 'assistant', content: 'Done.' },
    ]);
  });

  it('Markdown errors: text before the first turn, a bad timestamp, no turns at all', () => {
    expect(thrown(() => parseTranscript('# Title\n\nSome preamble\nuser: hi', 'chat.md'), UsageError).message).toBe(
      'chat.md:3: expected a turn such as "user: ..." or "## Assistant" before this text',
    );
    expect(thrown(() => parseTranscript('user: hi\n[not a time] assistant: hello', 'chat.md'), UsageError).message).toBe(
      'chat.md:2: "not a time" is not a date (use ISO 8601)',
    );
    expect(thrown(() => parseTranscript('# Only a title\n', 'chat.md'), UsageError).message).toMatch(/^chat\.md:1: no conversation turns found/);
    expect(thrown(() => parseTranscript('[]', 'chat.json'), UsageError).message).toMatch(/^chat\.json:1: no conversation turns/);
  });

  it('the format can be forced', () => {
    expect(parseTranscript('user: [not json]', 'x.txt', 'markdown')).toEqual([{ role: 'user', content: '[not json]' }]);
  });
});
