// Writes a LoCoMo conversation as memdir Markdown: one episodic memory per session, one heading per
// turn (its dialog id kept in the heading, so a retrieved chunk maps back to its turn).
import { serializeMemory } from '../../dist/internal.js';
import type { Conversation, Session } from './dataset.js';

/** The memdir user id of a conversation (its own scope). */
export function userOf(conversation: Conversation): string {
  return conversation.id.replace(/[^A-Za-z0-9._@-]/g, '-');
}

/** The session's file; in a pooled scope (user given) the conversation's id prefixes its name. */
export function sessionPath(conversation: Conversation, session: Session, pooledUser?: string): string {
  const n = String(session.number).padStart(2, '0');
  return pooledUser ? `${pooledUser}/episodic/${userOf(conversation)}-session-${n}.md` : `${userOf(conversation)}/episodic/session-${n}.md`;
}

export function sessionMarkdown(conversation: Conversation, session: Session, pooledUser?: string): string {
  const lines = [`# Session ${session.number}: ${session.dateText}`, ''];
  for (const turn of session.turns) {
    lines.push(`## ${turn.dia_id} ${turn.speaker}`, '');
    const caption = turn.blip_caption ? ` [shares an image: ${turn.blip_caption}]` : '';
    lines.push(`${turn.speaker} (${session.dateText}): ${turn.text}${caption}`, '');
  }
  return serializeMemory(
    {
      id: `${pooledUser ? `${pooledUser}-` : ''}${userOf(conversation)}-session-${session.number}`,
      user: pooledUser ?? userOf(conversation),
      type: 'episodic',
      importance: 0.5,
      status: 'active',
      created: session.date,
      updated: session.date,
      source: 'locomo',
      tags: [],
      extra: {},
    },
    lines.join('\n'),
  );
}

/** The dialog id of a chunk, from its heading path ("Session 3: ... > D3:7 Caroline"). */
export function turnOfHeading(heading: string): string | null {
  const m = /(?:^|> )(D\d+:\d+) /.exec(heading);
  return m ? m[1]! : null;
}
