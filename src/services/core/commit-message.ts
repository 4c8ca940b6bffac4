// The audit trail's message format: one structured commit message per write.
import { maskSecrets } from '../../memory/secrets.js';

/**
 * One structured commit message per write: a subject line, then key: value lines for tools. Anything that looks
 * like a secret is redacted, even when the memory was stored with allowSecrets: history outlives a forget.
 */
export function commitMessage(action: string, fields: Record<string, string | undefined>, body?: string): string {
  const subject = `memdir: ${action} ${fields.id ?? fields.user ?? ''}`.trim();
  const lines = Object.entries({ action, ...fields })
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${k}: ${v}`);
  return maskSecrets([subject, '', ...lines, ...(body ? ['', body] : [])].join('\n'));
}

/**
 * Whether a commit's message is one of forget's (by id, user or query): a deletion it made is meant to reach every
 * copy, so a merge lets it win over a change made elsewhere. Its `action:` line says so; a person's commit does not
 * carry memdir's subject and action line both.
 */
export function isForgetMessage(message: string): boolean {
  return /^memdir: FORGET(?:-USER|-QUERY)?\b/.test(message) && /^action: FORGET(?:-USER|-QUERY)?$/m.test(message);
}
