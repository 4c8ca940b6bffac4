// Finds obvious secrets (API keys, private keys, passwords in URLs) in text that is about to be stored in plain Markdown and git.
import { UsageError } from '../errors.js';

export interface SecretFinding {
  /** What was found, e.g. "AWS access key id". */
  kind: string;
  /** Why it counts as a secret, for the person who is told it was refused. */
  reason: string;
  /** The match with the secret part hidden, safe to print and log. */
  redacted: string;
  /** 1-based line of the match in the text. */
  line: number;
}

interface Detector {
  kind: string;
  reason: string;
  pattern: RegExp;
  /** Redacts one match; the default keeps a short recognisable prefix. */
  redact?: (match: RegExpExecArray) => string;
  /** False for matches that are placeholders rather than secrets. */
  accept?: (match: RegExpExecArray) => boolean;
}

const keep = (value: string, prefix: number) => `${value.slice(0, prefix)}…(${value.length} chars)`;

// A password that is obviously a placeholder: stars, <...>, ${VAR} / $VAR, {{var}}, x's, "password".
const PLACEHOLDER = /^(\*+|x+|<[^>]*>|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\{\{[^}]*\}\}|\.\.\.|…|password|pass|pwd|secret|changeme)$/i;

// Ordered from the most specific: a text position is reported once, by the first detector that claims it.
const DETECTORS: Detector[] = [
  {
    kind: 'private key',
    reason: 'a PEM private key block',
    pattern: /-----BEGIN ((?:RSA|EC|DSA|OPENSSH|PGP|ENCRYPTED) )?PRIVATE KEY( BLOCK)?-----/g,
    redact: (m) => m[0],
  },
  { kind: 'Anthropic API key', reason: 'starts with sk-ant-', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g, redact: (m) => keep(m[0], 7) },
  {
    kind: 'OpenAI-style API key',
    reason: 'starts with sk- followed by a long random string',
    pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g,
    redact: (m) => keep(m[0], 5),
  },
  { kind: 'Stripe secret key', reason: 'starts with sk_live_ or rk_live_', pattern: /\b[rs]k_live_[A-Za-z0-9]{16,}/g, redact: (m) => keep(m[0], 8) },
  {
    kind: 'AWS access key id',
    reason: 'AKIA/ASIA followed by 16 upper-case letters or digits',
    pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
    redact: (m) => keep(m[0], 4),
  },
  { kind: 'GitHub token', reason: 'starts with ghp_, gho_, ghu_, ghs_ or ghr_', pattern: /\bgh[pousr]_[A-Za-z0-9]{30,}/g, redact: (m) => keep(m[0], 4) },
  {
    kind: 'GitHub token',
    reason: 'a fine-grained personal access token (github_pat_)',
    pattern: /\bgithub_pat_[A-Za-z0-9_]{30,}/g,
    redact: (m) => keep(m[0], 11),
  },
  {
    kind: 'Slack token',
    reason: 'starts with xoxb-, xoxp-, xoxa-, xoxo-, xoxr- or xoxs-',
    pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
    redact: (m) => keep(m[0], 5),
  },
  { kind: 'Google API key', reason: 'starts with AIza followed by 35 characters', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g, redact: (m) => keep(m[0], 4) },
  {
    kind: 'password in a connection string',
    reason: 'a URL of the form scheme://user:password@host',
    pattern: /\b([a-z][a-z0-9+.-]*:\/\/)([^\s:/@]*):([^\s@/]+)@([^\s/?#]+)/gi,
    accept: (m) => !PLACEHOLDER.test(m[3]!),
    redact: (m) => `${m[1]}${m[2]}:****@${m[4]}`,
  },
  {
    kind: 'password or key assignment',
    reason: 'a value assigned to password, secret, token or api key',
    pattern: /\b(password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)\s*[:=]\s*["']?([^\s"']{8,})/gi,
    accept: (m) => !PLACEHOLDER.test(m[2]!),
    redact: (m) => `${m[1]}=****`,
  },
];

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

type Span = SecretFinding & { start: number; end: number };

function secretSpans(text: string): Span[] {
  const found: Span[] = [];
  for (const d of DETECTORS) {
    for (const m of text.matchAll(d.pattern)) {
      const start = m.index;
      const end = start + m[0].length;
      if (d.accept && !d.accept(m as RegExpExecArray)) continue;
      if (found.some((f) => start < f.end && end > f.start)) continue;
      const redacted = d.redact ? d.redact(m as RegExpExecArray) : keep(m[0], 4);
      found.push({ kind: d.kind, reason: d.reason, redacted, line: lineAt(text, start), start, end });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

/** Every obvious secret in the text, in order of position; empty when there is none. */
export function findSecrets(text: string): SecretFinding[] {
  return secretSpans(text).map(({ start: _s, end: _e, ...f }) => f);
}

/**
 * The text with each obvious secret replaced by its redacted form and kind, for writers that must keep
 * the rest (captured agent sessions): the secret is gone, and the reader can see that one was there.
 */
export function redactSecrets(text: string): { text: string; findings: SecretFinding[] } {
  const spans = secretSpans(text);
  let out = '';
  let at = 0;
  for (const s of spans) {
    if (s.start < at) continue;
    if (s.kind === 'private key') {
      // The whole block goes, not just its header line.
      const end = /-----END [A-Z ]*PRIVATE KEY( BLOCK)?-----/.exec(text.slice(s.end));
      out += `${text.slice(at, s.start)}[redacted private key]`;
      at = end ? s.end + end.index + end[0].length : text.length;
      continue;
    }
    out += `${text.slice(at, s.start)}[redacted ${s.kind}: ${s.redacted}]`;
    at = s.end;
  }
  return { text: out + text.slice(at), findings: spans.map(({ start: _s, end: _e, ...f }) => f) };
}

/** The text with every obvious secret replaced by its masked form (for what must never hold one: commit messages). */
export function maskSecrets(text: string): string {
  let out = '';
  let at = 0;
  for (const f of secretSpans(text)) {
    if (f.start < at) continue;
    out += text.slice(at, f.start) + f.redacted;
    at = f.end;
  }
  return out + text.slice(at);
}

/**
 * Refuses text with an obvious secret (a usage error, exit 2) and says what was found and why.
 * `field` names a one-line value (the key, a tag…) for the message; without it the text is the memory's, by line.
 */
export function assertNoSecrets(text: string, field?: string): void {
  const found = findSecrets(text);
  if (found.length === 0) return;
  const list = found.map((f) => `${f.kind}${field ? '' : ` on line ${f.line}`} (${f.redacted}: ${f.reason})`).join('; ');
  throw new UsageError(
    `refusing to store what looks like a secret${field ? ` in the ${field}` : ''}: ${list}. Memories are plain Markdown committed to git; ` +
      'remove it, or pass --allow-secrets (allowSecrets: true) to store it anyway',
  );
}
