// Finds secrets (API keys and tokens, private keys, passwords in URLs and assignments, bearer headers) in text that is
// about to be stored in plain Markdown and git or shown to a model: secretlint's recommended preset plus memdir's own rules.
import { UsageError } from '../errors.js';
import { isPlaceholder, ownSecretSpans, type SecretSpan } from './secret-rules.js';
import { prepareSecretlint, secretlintSpans } from './secretlint.js';

export interface SecretFinding {
  /** What was found, e.g. "AWS Secret Access Key". */
  kind: string;
  /** Why it counts as a secret, for the person who is told it was refused. */
  reason: string;
  /** The match with the secret part hidden, safe to print and log. */
  redacted: string;
  /** 1-based line of the match in the text. */
  line: number;
}

type Span = SecretSpan & { redacted: string; line: number };

// Where a secret token ends: some secretlint rules report a range shorter than the value (it starts at the key
// name), so every span is carried on to the end of the token it stops in; nothing of the secret is left behind.
const TOKEN_END = /[^\s"'`<>,;()[\]{}]*/y;

function widen(text: string, end: number): number {
  TOKEN_END.lastIndex = end;
  return end + (TOKEN_END.exec(text)?.[0].length ?? 0);
}

// Keyword rules say nothing about a value's shape: nothing of it is shown. Token formats keep their known prefix.
const VALUE_ONLY = new Set(['password assignment', 'token assignment', 'authorization header']);
const URL_CREDENTIALS = /^([a-z][a-z0-9+.-]*:\/\/)([^\s:/@]*):([^\s@/]+)@([^\s/?#]*)/i;
const KNOWN_PREFIX = /^(?:[A-Za-z]{2,6}[-_](?:[A-Za-z]{3,4}[-_])?|AKIA|ASIA|AIza|eyJ|SG\.)/;

function redactedForm(kind: string, value: string): string {
  if (kind === 'private key') return value.split(/\n|\\n/)[0]!.trim();
  const url = URL_CREDENTIALS.exec(value);
  if (url) return `${url[1]}${url[2]}:****@${url[4]}`;
  // Five characters at most: enough to tell sk-pr… from ghp_…, too few to help a guess.
  const prefix = VALUE_ONLY.has(kind) ? '' : (KNOWN_PREFIX.exec(value)?.[0] ?? '').slice(0, 5);
  return `${prefix}…(${value.length} chars)`;
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** Every secret's span, in order, overlapping finds of several rules merged into one (the first rule names it). */
async function secretSpans(text: string): Promise<Span[]> {
  if (!text) return [];
  // secretlint first: where both find the same secret, its more specific name wins.
  const all = [...(await secretlintSpans(text)), ...ownSecretSpans(text)]
    // A URL whose password is a placeholder (postgres://app:${DB_PASSWORD}@db, user:<password>@host) is documentation.
    .filter((s) => {
      const password = URL_CREDENTIALS.exec(text.slice(s.start, s.end))?.[3];
      return password === undefined || !isPlaceholder(password);
    })
    .map((s) => ({ ...s, end: s.kind === 'private key' ? s.end : widen(text, s.end) }))
    .sort((a, b) => a.start - b.start);
  const merged: SecretSpan[] = [];
  for (const s of all) {
    const last = merged.at(-1);
    if (last && s.start < last.end) last.end = Math.max(last.end, s.end);
    else merged.push({ ...s });
  }
  return merged.map((s) => ({ ...s, redacted: redactedForm(s.kind, text.slice(s.start, s.end)), line: lineAt(text, s.start) }));
}

const finding = ({ kind, reason, redacted, line }: Span): SecretFinding => ({ kind, reason, redacted, line });

/** Loads the scanner's rules ahead of the first scan, for a caller with time to spare before it has the text. */
export function prepareSecretScan(): Promise<void> {
  return prepareSecretlint();
}

/** Every secret in the text, in order of position; empty when there is none. */
export async function findSecrets(text: string): Promise<SecretFinding[]> {
  return (await secretSpans(text)).map(finding);
}

function replaced(text: string, spans: Span[], by: (s: Span) => string): string {
  let out = '';
  let at = 0;
  for (const s of spans) {
    out += text.slice(at, s.start) + by(s);
    at = s.end;
  }
  return out + text.slice(at);
}

/**
 * The text with each secret replaced by its redacted form and kind, for writers that must keep the rest
 * (captured agent sessions): the secret is gone, and the reader can see that one was there.
 */
export async function redactSecrets(text: string): Promise<{ text: string; findings: SecretFinding[] }> {
  const spans = await secretSpans(text);
  const out = replaced(text, spans, (s) => (s.kind === 'private key' ? '[redacted private key]' : `[redacted ${s.kind}: ${s.redacted}]`));
  return { text: out, findings: spans.map(finding) };
}

/** The text with every secret replaced by its masked form (for what must never hold one: commit messages, model output). */
export async function maskSecrets(text: string): Promise<string> {
  return replaced(text, await secretSpans(text), (s) => s.redacted);
}

/**
 * Refuses text with a secret (a usage error, exit 2) and says what was found and why.
 * `field` names a one-line value (the key, a tag…) for the message; without it the text is the memory's, by line.
 */
export async function assertNoSecrets(text: string, field?: string): Promise<void> {
  const found = await findSecrets(text);
  if (found.length === 0) return;
  const list = found.map((f) => `${f.kind}${field ? '' : ` on line ${f.line}`} (${f.redacted}: ${f.reason})`).join('; ');
  throw new UsageError(
    `refusing to store what looks like a secret${field ? ` in the ${field}` : ''}: ${list}. Memories are plain Markdown committed to git; ` +
      'remove it, or pass --allow-secrets (allowSecrets: true) to store it anyway',
  );
}
