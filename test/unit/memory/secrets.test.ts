// Covers the secret detector: each kind of key is found, redacted and explained; ordinary text and placeholders are not flagged.
import { describe, expect, it } from 'vitest';

import { UsageError } from '../../../src/errors.js';
import { assertNoSecrets, findSecrets, maskSecrets, redactSecrets } from '../../../src/memory/secrets.js';
import { type AddInput, validateAddInput } from '../../../src/services/add.js';
import { commitMessage } from '../../../src/services/core/commit-message.js';
import { thrown } from '../../support/thrown.js';

// Built at run time so no scanner mistakes this test file for a leak.
const r = (prefix: string, n: number, alphabet = 'aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY') =>
  prefix + Array.from({ length: n }, (_, i) => alphabet[(i * 7 + 3) % alphabet.length]).join('');

const SAMPLES: [string, string, string][] = [
  ['OpenAI-style API key', `my key is ${r('sk-', 40)} ok`, 'sk-'],
  ['OpenAI-style API key', `OPENAI_KEY ${r('sk-proj-', 48)}`, 'sk-'],
  ['Anthropic API key', r('sk-ant-api03-', 40), 'sk-ant-'],
  ['AWS access key id', `aws ${r('AKIA', 16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')} in us-east-1`, 'AKIA'],
  ['GitHub token', `token ${r('ghp_', 36)}`, 'ghp_'],
  ['GitHub token', r('github_pat_', 60), 'github_pat_'],
  ['Slack token', `bot ${r('xoxb-1234-5678-', 24)}`, 'xoxb-'],
  ['Google API key', r('AIza', 35), 'AIza'],
  ['Stripe secret key', r('sk_live_', 24), 'sk_live_'],
];

describe('findSecrets', () => {
  it.each(SAMPLES)('finds a %s, redacts it and says why', (kind, text, prefix) => {
    const found = findSecrets(text);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ kind, line: 1 });
    expect(found[0]!.reason.length).toBeGreaterThan(5);
    expect(found[0]!.redacted.startsWith(prefix)).toBe(true);
    // The secret itself never appears in what is reported.
    const secret = text.split(/\s+/).find((w) => w.startsWith(prefix))!;
    expect(JSON.stringify(found)).not.toContain(secret);
  });

  it('finds a private key block and names the line it starts on', () => {
    const text = `Server notes\n\n-----BEGIN OPENSSH PRIVATE KEY-----\n${r('', 64)}\n-----END OPENSSH PRIVATE KEY-----\n`;
    expect(findSecrets(text)).toEqual([{ kind: 'private key', reason: 'a PEM private key block', redacted: '-----BEGIN OPENSSH PRIVATE KEY-----', line: 3 }]);
    expect(findSecrets('-----BEGIN PRIVATE KEY-----\nabc')[0]!.kind).toBe('private key');
    expect(findSecrets('-----BEGIN RSA PRIVATE KEY-----')[0]!.kind).toBe('private key');
  });

  it('finds passwords in connection strings and hides only the password', () => {
    const found = findSecrets('db is postgres://app:hunter2hunter@db.internal:5432/prod and redis://:s3cr3t@cache:6379');
    expect(found.map((f) => [f.kind, f.redacted])).toEqual([
      ['password in a connection string', 'postgres://app:****@db.internal:5432'],
      ['password in a connection string', 'redis://:****@cache:6379'],
    ]);
    expect(findSecrets('mongodb+srv://admin:Tr0ub4dor@cluster0.example.net/db')[0]!.redacted).toBe('mongodb+srv://admin:****@cluster0.example.net');
  });

  it('finds password and key assignments', () => {
    expect(findSecrets('password = Zr8!kq2xLm')[0]).toMatchObject({ kind: 'password or key assignment', redacted: 'password=****' });
    expect(findSecrets('api_key: "9f8e7d6c5b4a3210"')[0]!.redacted).toBe('api_key=****');
  });

  it('reports several secrets in order with their lines', () => {
    const text = `line one\n${r('ghp_', 36)}\nline three postgres://u:pa55word99@h/db\n`;
    expect(findSecrets(text).map((f) => [f.kind, f.line])).toEqual([
      ['GitHub token', 2],
      ['password in a connection string', 3],
    ]);
  });

  it.each([
    'Alice prefers window seats and green tea.',
    'The sk- prefix is used by OpenAI keys; ours live in the vault.',
    'Use postgres://user:****@host/db in the docs, or postgres://user:<password>@host/db.',
    'Connect with postgres://app:${DB_PASSWORD}@db/prod',
    'Connect with postgres://localhost:5432/prod (no credentials in the URL).',
    'password: ********',
    'The password is stored in 1Password.',
    'Set api_key=${OPENAI_API_KEY} in the environment.',
    'AKIA is the prefix of AWS access key ids.',
    'See https://github.com/org/repo/issues/42 and mailto:bob@example.com',
    '这位客户的密码不应该记在这里。',
    '',
  ])('does not flag %j', (text) => {
    expect(findSecrets(text)).toEqual([]);
  });
});

describe('assertNoSecrets and mem add', () => {
  it('refuses with a usage error that names what and where, never the secret', () => {
    const key = r('sk-', 40);
    const err = thrown(() => assertNoSecrets(`note\nkey ${key}`), UsageError);
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(/OpenAI-style API key on line 2/);
    expect(err.message).toMatch(/--allow-secrets/);
    expect(err.message).not.toContain(key);
    expect(() => assertNoSecrets('nothing here')).not.toThrow();
  });

  it('validateAddInput refuses a secret unless allowSecrets is set', () => {
    const text = `deploy key ${r('ghp_', 36)}`;
    expect(() => validateAddInput({ text, user: 'alice' })).toThrow(UsageError);
    expect(() => validateAddInput({ text, user: 'alice', allowSecrets: true })).not.toThrow();
    expect(() => validateAddInput({ text: 'no secret here', user: 'alice' })).not.toThrow();
  });

  it('validateAddInput checks every stored field, not only the text', () => {
    const secret = r('sk-proj-', 30);
    const cases = [
      [{ tags: ['ok', r('ghp_', 36)] }, 'in the tags'],
      [{ key: secret }, 'in the key'],
      [{ source: `agent ${r('AKIA', 16).toUpperCase()}` }, 'in the source'],
      [{ supersedes: secret }, 'in the supersedes id'],
    ] satisfies [Partial<AddInput>, string][];
    for (const [extra, where] of cases) {
      const err = thrown(() => validateAddInput({ text: 'harmless', user: 'alice', ...extra }), UsageError);
      expect(err.message).toContain(`secret ${where}:`);
      expect(err.message).not.toContain(secret);
      expect(() => validateAddInput({ text: 'harmless', user: 'alice', allowSecrets: true, ...extra })).not.toThrow();
    }
  });
});

describe('maskSecrets and commit messages', () => {
  it('replaces each secret with its redacted form and keeps the rest', () => {
    const key = r('sk-proj-', 30);
    expect(maskSecrets(`a ${key} b postgres://u:hunter22@db c`)).toBe(`a sk-pr…(${key.length} chars) b postgres://u:****@db c`);
    expect(maskSecrets('nothing here')).toBe('nothing here');
  });

  it('a commit message never carries a secret, even of a memory stored with allowSecrets', () => {
    const key = r('sk-proj-', 30);
    const message = commitMessage('SUPERSEDE', { id: 'm1', reason: `same key "${key}"` }, `key: ${key}`);
    expect(message).not.toContain(key);
    expect(message).toContain('reason: same key "sk-pr…');
  });
});

describe('redactSecrets', () => {
  it('replaces each secret by its kind and redacted form, keeps the rest, and leaves nothing findSecrets would find', () => {
    const key = `sk-proj-${'A1b2C3d4'.repeat(5)}`;
    const text = `use ${key} for staging\nand postgres://app:hunter2x@db:5432/shop\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\ndone`;
    const r = redactSecrets(text);
    expect(r.findings.map((f) => f.kind)).toEqual(['OpenAI-style API key', 'password in a connection string', 'private key']);
    expect(r.text).toBe(
      'use [redacted OpenAI-style API key: sk-pr…(48 chars)] for staging\nand [redacted password in a connection string: postgres://app:****@db:5432]/shop\n[redacted private key]\ndone',
    );
    expect(findSecrets(r.text)).toEqual([]);
    expect(redactSecrets('nothing here')).toEqual({ text: 'nothing here', findings: [] });
  });
});
