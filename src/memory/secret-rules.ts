// memdir's own secret rules: only what secretlint's recommended preset does not find (keyword assignments, bearer
// headers, JWTs, and a few token formats), each a plain pattern run synchronously over the text.

/** One secret found by a rule: where it is, what it is and why it counts. */
export interface SecretSpan {
  kind: string;
  reason: string;
  start: number;
  end: number;
}

// Not after a letter or digit: `\b` never matches between `_` and a letter, so `DB_PASSWORD`'s PASSWORD or
// `KEY_sk-…` would be missed with it.
const EDGE = '(?<![A-Za-z0-9])';

// Token formats the preset lacks (it knows AWS, GitHub, Slack, npm, Anthropic, SendGrid, Shopify, Linear,
// 1Password, GCP service accounts, private keys with a real body, and credentials in URLs).
const FORMATS: { kind: string; reason: string; pattern: RegExp }[] = [
  // The preset wants exactly a real token's length; one cut short or padded in a paste still gives most of it away.
  {
    kind: 'GitHub Token',
    reason: 'starts with ghp_, gho_, ghu_, ghs_, ghr_ or github_pat_',
    pattern: new RegExp(`${EDGE}(?:gh[pousr]|github_pat)_[A-Za-z0-9_]{30,}`, 'g'),
  },
  { kind: 'GitLab token', reason: 'starts with glpat-, gldt- or glrt-', pattern: new RegExp(`${EDGE}gl(?:pat|dt|rt)-[A-Za-z0-9_-]{20,}`, 'g') },
  {
    kind: 'OpenAI-style API key',
    reason: 'starts with sk- followed by a long random string',
    pattern: new RegExp(`${EDGE}sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`, 'g'),
  },
  { kind: 'Stripe secret key', reason: 'starts with sk_live_ or rk_live_', pattern: new RegExp(`${EDGE}[rs]k_live_[A-Za-z0-9]{16,}`, 'g') },
  { kind: 'Google API key', reason: 'starts with AIza followed by 35 characters', pattern: new RegExp(`${EDGE}AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])`, 'g') },
  { kind: 'Hugging Face token', reason: 'starts with hf_ followed by 34 letters', pattern: new RegExp(`${EDGE}hf_[A-Za-z]{34}(?![A-Za-z0-9])`, 'g') },
  {
    kind: 'JSON Web Token',
    reason: 'three base64url parts, the first two starting with eyJ (a signed token)',
    pattern: new RegExp(`${EDGE}eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]*`, 'g'),
  },
];

// A value that stands for a secret rather than being one: stars, x's, <...>, ${VAR} / $VAR, {{var}}, %VAR%, a word
// that names the thing, code that reads it (a call, a member such as process.env.X or config.db.password), or a
// redacted form (`[redacted …]`, `ghp_…(40 chars)`): redacting twice finds nothing new.
const PLACEHOLDER =
  /^(?:[*x.…]+|\[redacted.*|<.*|\$.*|\{\{.*|%[A-Za-z_]+%|password|passwd|pass|pwd|secret|token|changeme|redacted|none|null|nil|undefined|true|false|your\b.*|your[_-].*|example.*|[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\(.*|\[.*)|[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+)$/i;

/** True for a value that only stands for a secret; an ellipsis marks a shortened or redacted form (`ghp_…(40 chars)`). */
export const isPlaceholder = (value: string) => value.includes('…') || PLACEHOLDER.test(value);

// Name parts that say the value next to them is a secret. Passwords are anything; tokens and keys also name
// ordinary settings (token_type=bearer, key=value), so their values must look random too.
const PASSWORD_PARTS = new Set(['password', 'passwd', 'pwd', 'passphrase', 'secret', 'secrets']);
const TOKEN_PARTS = new Set(['token', 'apikey', 'credential', 'credentials']);
const TOKEN_PAIRS = new Set(['api key', 'access key', 'private key', 'account key', 'secret key', 'client secret', 'auth token', 'session key']);
// A last part that makes the name about the secret, not the secret itself: PASSWORD_RESET_URL, TOKEN_TTL, secret_path.
const ABOUT_SUFFIXES = new Set(
  'url uri path file dir name names id ids type kind length len min max count size ttl expiry expires expiration policy reset hint header field env var prefix format rotation'.split(
    ' ',
  ),
);

/** The parts of a name: `DB_PASSWORD`, `clientSecret`, `aws.secret-access-key` → lower-case words. */
function nameParts(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((p) => p.toLowerCase());
}

type NameKind = 'password' | 'token' | null;

function secretName(name: string): NameKind {
  const parts = nameParts(name);
  if (parts.length === 0 || ABOUT_SUFFIXES.has(parts.at(-1)!)) return null;
  // PGPASSWORD, MYSQL_PWD, db_passphrase: a password part may be glued to a prefix.
  if (parts.some((p) => PASSWORD_PARTS.has(p) || /passw(?:or)?d$|passphrase$/.test(p))) return 'password';
  if (parts.some((p) => TOKEN_PARTS.has(p))) return 'token';
  for (let i = 0; i + 1 < parts.length; i++) if (TOKEN_PAIRS.has(`${parts[i]} ${parts[i + 1]}`)) return 'token';
  return null;
}

/** Bits per character: random keys score above 3.5, words and counters lower. */
function entropy(value: string): number {
  const counts = new Map<string, number>();
  for (const c of value) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / value.length) * Math.log2(n / value.length);
  return bits;
}

/** Letters and digits mixed, or many distinct characters: how a generated key looks, unlike a word or a number. */
const looksRandom = (v: string) => v.length >= 8 && !/^\d+$/.test(v) && ((/[A-Za-z]/.test(v) && /\d/.test(v)) || entropy(v) >= 3.5);

// `NAME = value`, `NAME: value`, `"name": "value"`, `name := value`, `name => value`, `--password=value`; the name
// may be quoted (up to 81 characters). Only the name and separator are consumed, so an assignment inside another's
// value (`key: DB_PASSWORD=…`) is seen too; the value is read after the name passed, so ordinary `a: b` text costs little.
const ASSIGNMENT = /(?<![A-Za-z0-9_])(["']?)([A-Za-z][A-Za-z0-9_.-]{0,80})\1[ \t]*(:=|=>|=|:)[ \t]*/g;
// A quoted value runs to its closing quote (a passphrase may hold spaces); 300 characters are enough to judge it
// (a longer one is still covered to its end by the caller).
const VALUE = /"([^"\n]{1,300})"|'([^'\n]{1,300})'|`([^`\n]{1,300})`|([^\s"'`,;]{1,300})/y;

function assignmentSpans(text: string): SecretSpan[] {
  const found: SecretSpan[] = [];
  for (const m of text.matchAll(ASSIGNMENT)) {
    const name = m[2]!;
    const kind = secretName(name);
    if (!kind) continue;
    VALUE.lastIndex = m.index + m[0].length;
    const v = VALUE.exec(text);
    if (!v) continue;
    const quoted = v[1] ?? v[2] ?? v[3];
    const raw = quoted ?? v[4]!;
    const value = raw.trim();
    if (!value || isPlaceholder(value)) continue;
    // `name: value` without quotes is also how prose reads ("Password: reset it in the admin page"): only a random value counts.
    const strict = m[3] === ':' && quoted === undefined;
    const ok = kind === 'password' && !strict ? value.length >= 6 : looksRandom(value);
    if (!ok) continue;
    const start = v.index + (quoted === undefined ? 0 : 1) + (raw.length - raw.trimStart().length);
    found.push({ kind: `${kind} assignment`, reason: `a value assigned to ${name}`, start, end: start + value.length });
  }
  return found;
}

// `Authorization: Bearer …`, `Authorization: token …`, `Authorization: Basic …`, or a bare `Bearer <token>`.
const AUTHORIZATION = /authorization["']?[ \t]*[:=][ \t]*["']?(?:(?:bearer|basic|token|digest)[ \t]+)?([A-Za-z0-9._~+/-]{8,}=*)/gi;
const BEARER = new RegExp(`${EDGE}bearer[ \\t]+([A-Za-z0-9._~+/-]{16,}=*)`, 'gi');

function headerSpans(text: string): SecretSpan[] {
  const found: SecretSpan[] = [];
  for (const pattern of [AUTHORIZATION, BEARER]) {
    for (const m of text.matchAll(pattern)) {
      const value = m[1]!;
      // "Authorization: required", "Bearer tokens expire": a credential looks random, a word does not.
      if (isPlaceholder(value) || !looksRandom(value)) continue;
      const start = m.index + m[0].length - value.length;
      found.push({
        kind: 'authorization header',
        reason: 'a credential sent as an HTTP Authorization header or bearer token',
        start,
        end: start + value.length,
      });
    }
  }
  return found;
}

// user:password@ in a URL with any scheme (the preset knows database schemes and user:password pairs, not redis://:pw@).
const URL_PASSWORD = /(?<![A-Za-z0-9+.-])[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:([^\s@/]+)@[^\s/?#]+/gi;

function urlSpans(text: string): SecretSpan[] {
  const found: SecretSpan[] = [];
  for (const m of text.matchAll(URL_PASSWORD)) {
    if (isPlaceholder(m[1]!)) continue;
    found.push({ kind: 'password in a URL', reason: 'a URL of the form scheme://user:password@host', start: m.index, end: m.index + m[0].length });
  }
  return found;
}

// A PEM private key block, even a short or partial one (the preset wants a real key's body): from its first line to
// its end line, or to the end of the text when that is missing.
const PEM_BEGIN = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g;
const PEM_END = /-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g;

function privateKeySpans(text: string): SecretSpan[] {
  const found: SecretSpan[] = [];
  for (const m of text.matchAll(PEM_BEGIN)) {
    if (found.length > 0 && m.index < found.at(-1)!.end) continue; // inside the block already found
    PEM_END.lastIndex = m.index;
    const end = PEM_END.exec(text);
    found.push({ kind: 'private key', reason: 'a PEM private key block', start: m.index, end: end ? end.index + end[0].length : text.length });
  }
  return found;
}

/** Every span memdir's own rules find, in no particular order (they may overlap). */
export function ownSecretSpans(text: string): SecretSpan[] {
  const found: SecretSpan[] = privateKeySpans(text);
  for (const f of FORMATS) {
    for (const m of text.matchAll(f.pattern)) found.push({ kind: f.kind, reason: f.reason, start: m.index, end: m.index + m[0].length });
  }
  return [...found, ...urlSpans(text), ...assignmentSpans(text), ...headerSpans(text)];
}
