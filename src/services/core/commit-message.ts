// The audit trail's message format: one structured commit message per write.
import { maskSecrets } from '../../memory/secrets.js';

/**
 * One structured commit message per write: a subject line, then key: value lines for tools. Anything that looks
 * like a secret is redacted, even when the memory was stored with allowSecrets: history outlives a forget.
 */
export async function commitMessage(action: string, fields: Record<string, string | undefined>, body?: string): Promise<string> {
  const subject = `memdir: ${action} ${fields.id ?? fields.user ?? ''}`.trim();
  const lines = Object.entries({ action, ...fields })
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${k}: ${v}`);
  return maskSecrets([subject, '', ...lines, ...(body ? ['', body] : [])].join('\n'));
}
