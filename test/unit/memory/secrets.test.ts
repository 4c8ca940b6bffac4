// Covers the secret detector: a corpus of secret forms, each found, explained and redacted without a trace of the
// secret; look-alikes (ordinary prose, placeholders, hashes) are not flagged; add, commit messages and capture use it.
import { describe, expect, it } from 'vitest';

import { UsageError } from '../../../src/errors.js';
import { assertNoSecrets, findSecrets, maskSecrets, redactSecrets } from '../../../src/memory/secrets.js';
import { type AddInput, validateAddInput } from '../../../src/services/add.js';
import { commitMessage } from '../../../src/services/core/commit-message.js';
import { thrownAsync } from '../../support/thrown.js';

// Built at run time so no scanner mistakes this test file for a leak: n characters of a fixed pseudo-random walk.
const ALNUM = 'aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xYzC';
const r = (prefix: string, n: number, alphabet = ALNUM) => prefix + Array.from({ length: n }, (_, i) => alphabet[(i * 7 + 3) % alphabet.length]).join('');
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const HEX = '0123456789abcdef';
const B64 = 'aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xYzC+/';
const jwt = `${r('eyJ', 20)}.${r('eyJ', 40)}.${r('', 43)}`;
const pemBody = r('MII', 120, B64.replace('+/', ''));

/** [what, the text, the secret in it that must never survive redaction] */
const CORPUS: [string, string, string][] = [
  ['DB_PASSWORD=', `DB_PASSWORD=${r('', 14)}`, r('', 14)],
  ['MYSQL_ROOT_PASSWORD: (YAML)', `MYSQL_ROOT_PASSWORD: ${r('pw', 10)}`, r('pw', 10)],
  ['PGPASSWORD=', `export PGPASSWORD=${r('', 12)}`, r('', 12)],
  ['MYSQL_PWD=', `MYSQL_PWD="${r('', 9)}"`, r('', 9)],
  ['--password= flag', `mysql --password=${r('', 11)} -h db`, r('', 11)],
  ['AWS_SECRET_ACCESS_KEY=', `AWS_SECRET_ACCESS_KEY=${r('', 40, B64)}`, r('', 40, B64)],
  ['aws_secret_access_key = (credentials file)', `[default]\naws_secret_access_key = ${r('', 40, B64)}\n`, r('', 40, B64)],
  ['AWS access key id', `export AWS_ACCESS_KEY_ID=${r('AKIA', 16, UPPER)}`, r('AKIA', 16, UPPER)],
  ['AWS session key id', `id ${r('ASIA', 16, UPPER)} today`, r('ASIA', 16, UPPER)],
  ['GITHUB_TOKEN= (classic)', `GITHUB_TOKEN=${r('ghp_', 36)}`, r('ghp_', 36)],
  ['GITHUB_TOKEN= (any value)', `GITHUB_TOKEN=${r('', 32, HEX)}`, r('', 32, HEX)],
  ['GitHub OAuth token', `token ${r('gho_', 36)}`, r('gho_', 36)],
  ['GitHub token of an odd length', `deploy token ${r('ghp_', 34)}`, r('ghp_', 34)],
  ['GitHub fine-grained token', `pat ${r('github_pat_', 22)}_${r('', 59)}`, `${r('github_pat_', 22)}_${r('', 59)}`],
  ['OPENAI_API_KEY= (project key)', `OPENAI_API_KEY=${r('sk-proj-', 20)}T3BlbkFJ${r('', 20)}`, `${r('sk-proj-', 20)}T3BlbkFJ${r('', 20)}`],
  ['OPENAI_API_KEY= (legacy key)', `OPENAI_API_KEY=${r('sk-', 48)}`, r('sk-', 48)],
  ['Anthropic key', `ANTHROPIC_API_KEY=${r('sk-ant-api03-', 93)}AA`, `${r('sk-ant-api03-', 93)}AA`],
  ['JSON "password"', `{"user": "app", "password": "${r('', 13)}"}`, r('', 13)],
  ['JSON "password" with spaces', `{"password": "correct horse ${r('', 8)} staple"}`, `horse ${r('', 8)}`],
  ['JSON "api_key"', `{"api_key": "${r('', 24, HEX)}"}`, r('', 24, HEX)],
  ['YAML client_secret', `client_secret: '${r('', 30)}'`, r('', 30)],
  ['JS clientSecret', `const clientSecret = "${r('', 28)}";`, r('', 28)],
  ['Rails SECRET_KEY_BASE', `SECRET_KEY_BASE=${r('', 64, HEX)}`, r('', 64, HEX)],
  [
    'Azure storage AccountKey',
    `DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${r('', 86, B64)}==;EndpointSuffix=core.windows.net`,
    r('', 86, B64),
  ],
  ['password: (YAML, random)', `password: ${r('Zr8!', 8)}`, r('Zr8!', 8)],
  ['Authorization: Bearer JWT', `curl -H "Authorization: Bearer ${jwt}" https://api.example.com`, jwt],
  ['Authorization: Bearer opaque', `Authorization: Bearer ${r('', 32)}`, r('', 32)],
  ['Authorization: token', `Authorization: token ${r('', 40, HEX)}`, r('', 40, HEX)],
  ['Authorization: Basic', `Authorization: Basic ${r('', 24, B64)}==`, r('', 24, B64)],
  ['JSON Authorization header', `{"headers": {"Authorization": "Bearer ${r('', 30)}"}}`, r('', 30)],
  ['bare bearer token', `send it with bearer ${r('', 40)} please`, r('', 40)],
  ['JWT on its own', `the session cookie was ${jwt}`, jwt],
  ['npm token', `token ${r('npm_', 36)}`, r('npm_', 36)],
  ['.npmrc auth token', `//registry.npmjs.org/:_authToken=${r('npm_', 36)}`, r('npm_', 36)],
  ['GitLab token', `GITLAB=${r('glpat-', 20)}`, r('glpat-', 20)],
  ['GitLab token after _', `KEY_${r('glpat-', 24)}`, r('glpat-', 24)],
  ['Slack bot token', `bot xoxb-123456789012-1234567890123-${r('', 24)}`, `xoxb-123456789012-1234567890123-${r('', 24)}`],
  ['SendGrid key', `SG.${r('', 22)}.${r('', 43)}`, `${r('', 22)}.${r('', 43)}`],
  ['Stripe live key', `stripe ${r('sk_live_', 24)}`, r('sk_live_', 24)],
  ['Google API key', `maps ${r('AIza', 35)}`, r('AIza', 35)],
  ['Hugging Face token', `HF ${r('hf_', 34, 'abcdefghijklmnopqrstuvwxyzABCDEFGH')}`, r('hf_', 34, 'abcdefghijklmnopqrstuvwxyzABCDEFGH')],
  ['Shopify token', `shop ${r('shpat_', 32, HEX)}`, r('shpat_', 32, HEX)],
  ['Linear key', `linear ${r('lin_api_', 40)}`, r('lin_api_', 40)],
  ['postgres URL', `db is postgres://app:${r('', 12)}@db.internal:5432/prod`, r('', 12)],
  ['DATABASE_URL= mysql', `DATABASE_URL=mysql://root:${r('', 10)}@localhost:3306/app`, r('', 10)],
  ['mongodb+srv URL', `mongodb+srv://admin:${r('', 10)}@cluster0.example.net/db`, r('', 10)],
  ['redis URL without user', `redis://:${r('', 10)}@cache:6379`, r('', 10)],
  ['https basic auth URL', `https://deploy:${r('', 12)}@git.example.com/repo.git`, r('', 12)],
  ['RSA private key block', `key:\n-----BEGIN RSA PRIVATE KEY-----\n${pemBody}\n-----END RSA PRIVATE KEY-----\nend`, pemBody],
  ['OpenSSH private key, no end line', `-----BEGIN OPENSSH PRIVATE KEY-----\n${r('b3BlbnNzaC1rZXktdjE', 40)}`, r('b3BlbnNzaC1rZXktdjE', 40)],
  ['service account JSON private key', `{"private_key": "-----BEGIN PRIVATE KEY-----\\n${pemBody}\\n-----END PRIVATE KEY-----\\n"}`, pemBody],
];

const LOOK_ALIKES = [
  'We should document the password reset flow.',
  'The API uses a token bucket for rate limiting.',
  'Fixed in commit 3f786850e387550fdab836ed7e6dc881de23001b (git SHA).',
  'commit_sha=3f786850e387550fdab836ed7e6dc881de23001b',
  'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  'request id 123e4567-e89b-12d3-a456-426614174000',
  'Alice prefers window seats and green tea.',
  'Password: reset it from the admin page.',
  'password: ********',
  'The secret to good tea is patience. secret: patience',
  'DB_PASSWORD=${DB_PASSWORD}',
  'api_key=<your key here>',
  'Set OPENAI_API_KEY in your environment; OPENAI_API_KEY=$OPENAI_API_KEY',
  'const password = getPassword(); const token = process.env.GITHUB_TOKEN;',
  'password = config.db.password',
  'max_tokens=4096, token_type=bearer, TOKEN_TTL=3600, "token_count": 1234',
  'password_reset_url=https://example.com/reset and SECRET_PATH=/run/secrets/app',
  'The sk- prefix is used by OpenAI keys; sk-learn is a library; ours live in the vault.',
  'AKIA is the prefix of AWS access key ids.',
  'Bearer tokens expire after an hour. authorization: required for every endpoint',
  'Authorization: Bearer <token>',
  'eyJ is how a JSON object starts in base64.',
  '-----BEGIN PUBLIC KEY----- is fine to share.',
  'Use postgres://user:****@host/db in the docs, or postgres://user:<password>@host/db.',
  'Connect with postgres://app:${DB_PASSWORD}@db/prod',
  'Connect with postgres://localhost:5432/prod (no credentials in the URL).',
  'The password is stored in 1Password.',
  'See https://github.com/org/repo/issues/42 and mailto:bob@example.com',
  'secretlint-disable is a comment; the author: Alice Smith; "description": "the password policy"',
  '这位客户的密码不应该记在这里。',
  '',
];

describe('findSecrets: the corpus', () => {
  it('holds at least 40 secret forms', () => expect(CORPUS.length).toBeGreaterThanOrEqual(40));

  it.each(CORPUS)('finds %s and explains it without the secret', async (_what, text, secret) => {
    const found = await findSecrets(text);
    expect(found.length).toBeGreaterThan(0);
    for (const f of found) {
      expect(f.kind.length).toBeGreaterThan(2);
      expect(f.reason.length).toBeGreaterThan(5);
    }
    expect(JSON.stringify(found)).not.toContain(secret);
  });

  it.each(CORPUS)('redacts %s in place, leaving no part of the secret', async (_what, text, secret) => {
    const out = await redactSecrets(text);
    expect(out.text).not.toContain(secret);
    // Not even a long piece of it: the first and last halves are gone too.
    expect(out.text).not.toContain(secret.slice(0, Math.ceil(secret.length / 2)));
    expect(out.text).not.toContain(secret.slice(Math.floor(secret.length / 2)));
    expect(out.text).toMatch(/\[redacted /);
    expect(await findSecrets(out.text)).toEqual([]);
    expect(await maskSecrets(text)).not.toContain(secret);
  });

  it.each(LOOK_ALIKES)('does not flag %j', async (text) => {
    expect(await findSecrets(text)).toEqual([]);
  });
});

describe('findSecrets: details', () => {
  it('names the line a secret is on and keeps a known prefix only', async () => {
    const text = `line one\n${r('ghp_', 36)}\nline three postgres://u:${r('', 10)}@h/db\nDB_PASSWORD=${r('', 10)}`;
    const found = await findSecrets(text);
    expect(found.map((f) => f.line)).toEqual([2, 3, 4]);
    expect(found[0]!.redacted).toBe('ghp_…(40 chars)');
    expect(found[1]!.redacted).toBe('postgres://u:****@h');
    expect(found[2]).toMatchObject({ kind: 'password assignment', redacted: '…(10 chars)', reason: 'a value assigned to DB_PASSWORD' });
  });

  it('keeps the name of an assignment readable and redacts its value whole (a rule whose range stops short included)', async () => {
    const key = r('', 40, B64);
    expect((await redactSecrets(`AWS_SECRET_ACCESS_KEY=${key} next`)).text).toBe('AWS_SECRET_ACCESS_KEY=[redacted AWS Secret Access Key: …(40 chars)] next');
  });

  it('finds a private key block and names the line it starts on', async () => {
    const found = await findSecrets(`Server notes\n\n-----BEGIN OPENSSH PRIVATE KEY-----\n${r('', 64)}\n-----END OPENSSH PRIVATE KEY-----\n`);
    expect(found).toMatchObject([{ kind: 'private key', redacted: '-----BEGIN OPENSSH PRIVATE KEY-----', line: 3 }]);
  });

  it('is not turned off by a secretlint-disable comment in the text', async () => {
    const text = `<!-- secretlint-disable -->\nGITHUB_TOKEN=${r('ghp_', 36)}\n<!-- secretlint-enable -->`;
    expect((await findSecrets(text)).length).toBe(1);
  });
});

describe('assertNoSecrets and mem add', () => {
  it('refuses with a usage error that names what and where, never the secret', async () => {
    const key = r('sk-', 40);
    const err = await thrownAsync(() => assertNoSecrets(`note\nkey ${key}`), UsageError);
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(/OpenAI-style API key on line 2/);
    expect(err.message).toMatch(/--allow-secrets/);
    expect(err.message).not.toContain(key);
    await expect(assertNoSecrets('nothing here')).resolves.toBeUndefined();
  });

  it('validateAddInput refuses a secret unless allowSecrets is set', async () => {
    const text = `deploy with AWS_SECRET_ACCESS_KEY=${r('', 40, B64)}`;
    await expect(validateAddInput({ text, user: 'alice' })).rejects.toThrow(UsageError);
    await expect(validateAddInput({ text, user: 'alice', allowSecrets: true })).resolves.toBeUndefined();
    await expect(validateAddInput({ text: 'no secret here', user: 'alice' })).resolves.toBeUndefined();
  });

  it('validateAddInput checks every stored field, not only the text', async () => {
    const secret = r('sk-proj-', 30);
    const cases = [
      [{ tags: ['ok', r('ghp_', 36)] }, 'in the tags'],
      [{ key: secret }, 'in the key'],
      [{ source: `agent ${r('AKIA', 16, UPPER)}` }, 'in the source'],
      [{ supersedes: secret }, 'in the supersedes id'],
    ] satisfies [Partial<AddInput>, string][];
    for (const [extra, where] of cases) {
      const err = await thrownAsync(() => validateAddInput({ text: 'harmless', user: 'alice', ...extra }), UsageError);
      expect(err.message).toContain(`secret ${where}:`);
      expect(err.message).not.toContain(secret);
      await expect(validateAddInput({ text: 'harmless', user: 'alice', allowSecrets: true, ...extra })).resolves.toBeUndefined();
    }
  });
});

describe('maskSecrets and commit messages', () => {
  it('replaces each secret with its redacted form and keeps the rest', async () => {
    const key = r('sk-proj-', 30);
    expect(await maskSecrets(`a ${key} b postgres://u:${r('', 10)}@db c`)).toBe(`a sk-pr…(${key.length} chars) b postgres://u:****@db c`);
    expect(await maskSecrets('nothing here')).toBe('nothing here');
  });

  it('a commit message never carries a secret, even of a memory stored with allowSecrets', async () => {
    const key = r('', 40, B64);
    const message = await commitMessage('SUPERSEDE', { id: 'm1', reason: `same key "AWS_SECRET_ACCESS_KEY=${key}"` }, `key: DB_PASSWORD=${r('', 12)}`);
    expect(message).not.toContain(key);
    expect(message).not.toContain(r('', 12));
    expect(message).toContain('reason: same key "');
  });
});

describe('redactSecrets', () => {
  it('replaces each secret by its kind and redacted form, and keeps the rest', async () => {
    const key = `sk-proj-${'A1b2C3d4'.repeat(5)}`;
    const text = `use ${key} for staging\nand postgres://app:hunter2x@db:5432/shop\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\ndone`;
    const out = await redactSecrets(text);
    expect(out.text).toBe(
      'use [redacted OpenAI-style API key: sk-pr…(48 chars)] for staging\n' +
        'and [redacted PostgreSQL connection string: postgres://app:****@db:5432]\n[redacted private key]\ndone',
    );
    expect(await redactSecrets('nothing here')).toEqual({ text: 'nothing here', findings: [] });
  });
});
