// The audit trail's message format: one structured commit message per write.
/** One structured commit message per write: a subject line, then key: value lines for tools. */
export function commitMessage(action: string, fields: Record<string, string | undefined>, body?: string): string {
  const subject = `memdir: ${action} ${fields.id ?? fields.user ?? ''}`.trim();
  const lines = Object.entries({ action, ...fields })
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${k}: ${v}`);
  return [subject, '', ...lines, ...(body ? ['', body] : [])].join('\n');
}
