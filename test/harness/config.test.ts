import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { describe, expect, it } from 'vitest';
import { envLinesFor, loadConfig, maskSecretLines } from '../../harness/config.ts';
import { VARIABLES } from '../../core/variables.ts';
import type { RunFlags } from '../../harness/config.ts';
import { main } from '../../cli/main.ts';
import { HarnessError } from '../../harness/errors.ts';
import { TOPICS } from '../../core/model.ts';

const emptyDir = () => mkdtempSync(join(tmpdir(), 'conformance-config-'));
const TEMPLATE_ID = '01890a5d-ac96-774b-bcce-b302099a8058';

const host = {
  CONFORMANCE_BASE_URL: 'https://api.example.test',
  CONFORMANCE_TOKEN_URL: 'https://auth.example.test/oauth2/token',
  CONFORMANCE_CLIENT_ID: 'client',
  CONFORMANCE_CLIENT_SECRET: 'secret-value',
  CONFORMANCE_BUSINESS_ID: '01890a5d-ac96-774b-bcce-b302099a8057',
};

function configError(flags: RunFlags, env: Record<string, string>): HarnessError {
  try {
    loadConfig(flags, env, emptyDir());
  } catch (error) {
    if (error instanceof HarnessError) return error;
    throw error;
  }
  throw new Error('loadConfig accepted the configuration');
}

describe('configuration errors never show a secret', () => {
  const canary = 'CANARY-SECRET-8f3a';
  const cases: Array<{ name: string; flags?: RunFlags; env: Record<string, string> }> = [
    { name: 'the secret pasted as the token URL', env: { ...host, CONFORMANCE_CLIENT_SECRET: canary, CONFORMANCE_TOKEN_URL: canary } },
    { name: 'the secret pasted as the seed', env: { ...host, CONFORMANCE_CLIENT_SECRET: canary, CONFORMANCE_SEED: canary } },
    { name: 'the limited secret given as a topic', flags: { topic: canary }, env: { ...host, CONFORMANCE_LIMITED_CLIENT_SECRET: canary, CONFORMANCE_LIMITED_CLIENT_ID: 'l' } },
    { name: 'a URL with credentials that does not parse', env: { ...host, CONFORMANCE_BASE_URL: `http://user:ab#c${canary}@127.0.0.1:1` } },
    { name: 'the expired-token fixture pasted as the seed', env: { ...host, CONFORMANCE_EXPIRED_TOKEN: canary, CONFORMANCE_SEED: canary } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const error = configError(c.flags ?? {}, c.env);
      expect(error.message).not.toContain(canary);
      expect(error.message).toMatch(/CONFORMANCE_|--topic/);
    });
  }
});

describe('configuration errors name the variable (and the topics that need it)', () => {
  const cases: Array<{ name: string; flags?: RunFlags; env: Record<string, string>; code: string; mentions: string[] }> = [
    { name: 'malformed base URL', env: { ...host, CONFORMANCE_BASE_URL: 'not a url' }, code: 'CONF_INVALID_VALUE', mentions: ['CONFORMANCE_BASE_URL'] },
    { name: 'base URL with another scheme', env: { ...host, CONFORMANCE_BASE_URL: 'ftp://x.test' }, code: 'CONF_INVALID_VALUE', mentions: ['CONFORMANCE_BASE_URL'] },
    { name: 'malformed token URL', env: { ...host, CONFORMANCE_TOKEN_URL: '://x' }, code: 'CONF_INVALID_VALUE', mentions: ['CONFORMANCE_TOKEN_URL'] },
    { name: 'unknown profile', env: { CONFORMANCE_PROFILE: 'fast' }, code: 'CONF_INVALID_VALUE', mentions: ['CONFORMANCE_PROFILE', 'full or safe'] },
    { name: 'unknown profile by flag', flags: { profile: 'fast' }, env: {}, code: 'CONF_INVALID_VALUE', mentions: ['--profile'] },
    { name: 'seed not a number', env: { CONFORMANCE_SEED: '12abc' }, code: 'CONF_INVALID_VALUE', mentions: ['CONFORMANCE_SEED'] },
    { name: 'runs zero', env: { CONFORMANCE_RUNS: '0' }, code: 'CONF_INVALID_VALUE', mentions: ['CONFORMANCE_RUNS'] },
    { name: 'negative concurrency', env: { CONFORMANCE_CONCURRENCY: '-1' }, code: 'CONF_INVALID_VALUE', mentions: ['CONFORMANCE_CONCURRENCY'] },
    { name: 'timeout not a number', env: { CONFORMANCE_TIMEOUT_MS: '1s' }, code: 'CONF_INVALID_VALUE', mentions: ['CONFORMANCE_TIMEOUT_MS'] },
    { name: 'budget zero', env: { CONFORMANCE_MAX_REQUESTS: '0' }, code: 'CONF_INVALID_VALUE', mentions: ['CONFORMANCE_MAX_REQUESTS'] },
    { name: 'unknown topic', env: { CONFORMANCE_TOPICS: 'wallet,walet' }, code: 'CONF_UNKNOWN_TOPIC', mentions: ['CONFORMANCE_TOPICS', 'walet', 'wallet'] },
    { name: 'unknown topic by flag', flags: { topic: 'nope' }, env: {}, code: 'CONF_UNKNOWN_TOPIC', mentions: ['--topic', 'nope'] },
    { name: 'recipient not E.164', env: { ...host, CONFORMANCE_RECIPIENTS: '+4915112345678,015112345678' }, code: 'CONF_INVALID_VALUE', mentions: ['CONFORMANCE_RECIPIENTS', '015112345678'] },
    { name: 'bad shard', flags: { shard: '3/2' }, env: {}, code: 'CONF_INVALID_VALUE', mentions: ['--shard'] },
    { name: 'defects against a host', env: { ...host, CONFORMANCE_REFERENCE_DEFECTS: 'x' }, code: 'CONF_INVALID_VALUE', mentions: ['CONFORMANCE_REFERENCE_DEFECTS', 'embedded'] },
    { name: 'empty --topic', flags: { topic: ' ' }, env: {}, code: 'CONF_INVALID_VALUE', mentions: ['--topic', 'empty'] },
    { name: 'base URL ending in /v1', env: { ...host, CONFORMANCE_BASE_URL: 'https://api.example.test/v1/' }, code: 'CONF_INVALID_VALUE', mentions: ['CONFORMANCE_BASE_URL', '/v1', 'https://api.example.test'] },
    { name: 'business id not a UUID', env: { ...host, CONFORMANCE_BUSINESS_ID: 'b' }, code: 'CONF_INVALID_VALUE', mentions: ['CONFORMANCE_BUSINESS_ID', 'UUID'] },
    // An empty base URL (a CI secret that did not resolve) must not fall back to the embedded reference.
    { name: 'base URL set but empty', env: { ...host, CONFORMANCE_BASE_URL: '' }, code: 'CONF_INVALID_VALUE', mentions: ['CONFORMANCE_BASE_URL', 'empty', 'embedded'] },
    { name: 'base URL of blanks', env: { CONFORMANCE_BASE_URL: '  ' }, code: 'CONF_INVALID_VALUE', mentions: ['CONFORMANCE_BASE_URL', 'empty'] },
    {
      name: 'host settings without a base URL',
      env: { CONFORMANCE_TOKEN_URL: 'https://auth.example.test/oauth2/token', CONFORMANCE_CLIENT_ID: 'c' },
      code: 'CONF_MISSING_VARIABLE',
      mentions: ['CONFORMANCE_BASE_URL', 'CONFORMANCE_TOKEN_URL', 'CONFORMANCE_CLIENT_ID'],
    },
    {
      name: 'token URL missing',
      flags: { topic: 'wallet,cursors' },
      env: { ...host, CONFORMANCE_TOKEN_URL: '' },
      code: 'CONF_MISSING_VARIABLE',
      mentions: ['CONFORMANCE_TOKEN_URL', 'every topic', 'wallet', 'cursors'],
    },
    { name: 'client secret missing', env: { ...host, CONFORMANCE_CLIENT_SECRET: '' }, code: 'CONF_MISSING_VARIABLE', mentions: ['CONFORMANCE_CLIENT_SECRET', ...TOPICS] },
    { name: 'business id missing', env: { ...host, CONFORMANCE_BUSINESS_ID: '' }, code: 'CONF_MISSING_VARIABLE', mentions: ['CONFORMANCE_BUSINESS_ID'] },
    {
      name: 'limited secret without its id',
      env: { ...host, CONFORMANCE_LIMITED_CLIENT_SECRET: 's' },
      code: 'CONF_MISSING_VARIABLE',
      mentions: ['CONFORMANCE_LIMITED_CLIENT_ID', 'auth-ordering', 'wallet'],
    },
    { name: 'missing --env-file', flags: { envFile: '/nonexistent/.env' }, env: {}, code: 'CONF_ENV_FILE', mentions: ['--env-file'] },
  ];

  for (const c of cases) {
    it(`${c.name} -> ${c.code}`, () => {
      const error = configError(c.flags ?? {}, c.env);
      expect(error.code).toBe(c.code);
      for (const text of c.mentions) expect(error.message).toContain(text);
      expect(error.message).not.toContain('secret-value');
    });
  }

  it('exits 2 through the CLI with one line naming the variable', async () => {
    const lines: string[] = [];
    const code = await main(['run', '--profile', 'fast'], { out: (l) => lines.push(l), err: (l) => lines.push(l) });
    expect(code).toBe(2);
    expect(lines).toEqual(['conformance: --profile (CONFORMANCE_PROFILE) must be full or safe (got "fast") [CONF_INVALID_VALUE]']);
  });
});

describe('configuration sources', () => {
  it('flags beat the environment, which beats .env; process.env is never written', () => {
    const dir = emptyDir();
    writeFileSync(join(dir, '.env'), 'CONFORMANCE_RUNS=7\nCONFORMANCE_SEED=3\nCONFORMANCE_PROFILE=safe\nCONFORMANCE_PARAM_LIMIT=page_size\n');
    const before = { ...process.env };
    const config = loadConfig({ seed: '42' }, { CONFORMANCE_SEED: '5', CONFORMANCE_RUNS: '9' }, dir);
    expect(config.settings.seed).toBe(42);
    expect(config.settings.runs).toBe(9);
    expect(config.settings.profile).toBe('safe');
    expect(config.params.limit).toBe('page_size');
    expect(config.seedGiven).toBe(true);
    expect(process.env).toEqual(before);
  });

  it('--env-file is read instead of ./.env', () => {
    const dir = emptyDir();
    writeFileSync(join(dir, '.env'), 'CONFORMANCE_RUNS=7\n');
    writeFileSync(join(dir, 'other.env'), 'CONFORMANCE_RUNS=11\n');
    expect(loadConfig({ envFile: 'other.env' }, {}, dir).settings.runs).toBe(11);
  });

  it('defaults: embedded target, every topic, documented bounds, a random 31-bit seed', () => {
    const config = loadConfig({}, {}, emptyDir());
    expect(config.target).toBeUndefined();
    expect(config.topics).toEqual([...TOPICS]);
    expect(config.settings).toMatchObject({ profile: 'full', runs: 25, maxRequests: 5000, concurrency: 10, timeoutMs: 10000, settleTimeoutMs: 15000 });
    expect(config.params).toEqual({ limit: 'limit', cursor: 'cursor', status: 'status', to: 'to' });
    expect(config.seedGiven).toBe(false);
    expect(config.settings.seed).toBeGreaterThanOrEqual(0);
    expect(config.settings.seed).toBeLessThan(2 ** 31);
    expect(config.settings.runId).toMatch(/^[A-Za-z0-9._-]{1,64}$/);
  });

  it('a host configuration gives target, apps and the optional fixtures it has', () => {
    const config = loadConfig(
      { topic: 'cursors,wallet' },
      { ...host, CONFORMANCE_BASE_URL: 'https://api.example.test/', CONFORMANCE_RECIPIENTS: '+4915112345678, +4915112345679', CONFORMANCE_TEMPLATE_ID: TEMPLATE_ID, CONFORMANCE_TEMPLATE_PLACEHOLDERS: 'a,b' },
      emptyDir(),
    );
    expect(config.target).toEqual({ baseUrl: 'https://api.example.test', tokenUrl: host.CONFORMANCE_TOKEN_URL, audience: 'service-external-api', embedded: false });
    expect(config.topics).toEqual(['cursors', 'wallet']);
    expect(config.apps.primary).toEqual({ clientId: 'client', clientSecret: 'secret-value' });
    expect(config.apps.limited).toBeUndefined();
    expect(config.fixtures).toEqual({
      businessId: host.CONFORMANCE_BUSINESS_ID,
      templateId: TEMPLATE_ID,
      templatePlaceholders: ['a', 'b'],
      recipients: ['+4915112345678', '+4915112345679'],
    });
  });

  it('VARIABLES lists every variable of the interface, each with a meaning', () => {
    const names = VARIABLES.map((v) => v.name);
    for (const required of ['CONFORMANCE_BASE_URL', 'CONFORMANCE_TOKEN_URL', 'CONFORMANCE_CLIENT_ID', 'CONFORMANCE_CLIENT_SECRET', 'CONFORMANCE_AUDIENCE', 'CONFORMANCE_BUSINESS_ID', 'CONFORMANCE_OTHER_BUSINESS_ID', 'CONFORMANCE_LIMITED_CLIENT_ID', 'CONFORMANCE_LIMITED_CLIENT_SECRET', 'CONFORMANCE_SENDER_ID', 'CONFORMANCE_UNAUTHORIZED_SENDER_ID', 'CONFORMANCE_TEMPLATE_ID', 'CONFORMANCE_TEMPLATE_PLACEHOLDERS', 'CONFORMANCE_INACTIVE_TEMPLATE_ID', 'CONFORMANCE_MESSAGE_ID', 'CONFORMANCE_FOREIGN_MESSAGE_ID', 'CONFORMANCE_WEBHOOK_ENDPOINT_ID', 'CONFORMANCE_EXPIRED_CURSOR', 'CONFORMANCE_EXPIRED_CURSOR_BULK_ID', 'CONFORMANCE_RECIPIENTS', 'CONFORMANCE_PARAM_LIMIT', 'CONFORMANCE_PARAM_CURSOR', 'CONFORMANCE_PARAM_STATUS', 'CONFORMANCE_PARAM_TO', 'CONFORMANCE_PROFILE', 'CONFORMANCE_TOPICS', 'CONFORMANCE_SEED', 'CONFORMANCE_RUNS', 'CONFORMANCE_MAX_REQUESTS', 'CONFORMANCE_CONCURRENCY', 'CONFORMANCE_TIMEOUT_MS', 'CONFORMANCE_SETTLE_TIMEOUT_MS', 'CONFORMANCE_REPORT_DIR']) {
      expect(names).toContain(required);
    }
    for (const v of VARIABLES) expect(v.meaning.length).toBeGreaterThan(10);
  });
});

describe('VARIABLES is the one table', () => {
  it('lists the fixtures the reference and the suites use, with kind and target', () => {
    const byName = new Map(VARIABLES.map((v) => [v.name, v]));
    for (const name of ['CONFORMANCE_MESSAGE_TEMPLATE_ID', 'CONFORMANCE_FOREIGN_BULK_ID', 'CONFORMANCE_FOREIGN_WEBHOOK_ENDPOINT_ID']) {
      expect(byName.get(name)?.kind, name).toBe('uuid');
      expect(byName.get(name)?.sets, name).toHaveProperty('fixture');
    }
    expect(VARIABLES.filter((v) => v.kind === 'secret').map((v) => v.name).sort()).toEqual(['CONFORMANCE_CLIENT_SECRET', 'CONFORMANCE_EXPIRED_TOKEN', 'CONFORMANCE_LIMITED_CLIENT_SECRET', 'CONFORMANCE_OTHER_CLIENT_SECRET']);
    expect(new Set(VARIABLES.map((v) => v.name)).size).toBe(VARIABLES.length);
  });

  it('every UUID variable is checked as a UUID, and read into its fixture', () => {
    // Variables that go together are given together.
    const pairs: Record<string, Record<string, string>> = {
      CONFORMANCE_EXPIRED_CURSOR_BULK_ID: { CONFORMANCE_EXPIRED_CURSOR: 'c' },
      CONFORMANCE_TEMPLATE_ID: { CONFORMANCE_TEMPLATE_PLACEHOLDERS: 'a' },
    };
    for (const variable of VARIABLES.filter((v) => v.kind === 'uuid')) {
      const error = configError({}, { ...host, ...pairs[variable.name], [variable.name]: 'not-a-uuid' });
      expect(error.message, variable.name).toContain(`${variable.name} must be a UUID`);
      const fixture = (variable.sets as { fixture: string }).fixture;
      const config = loadConfig({}, { ...host, ...pairs[variable.name], [variable.name]: TEMPLATE_ID }, emptyDir());
      expect((config.fixtures as Record<string, unknown>)[fixture], variable.name).toBe(TEMPLATE_ID);
    }
  });

  it("the reference's env lines come from the table: every variable with a target, parsed back to the same run", async () => {
    const { startReference } = await import('../../reference/index.ts');
    const reference = await startReference();
    try {
      const lines = envLinesFor(reference);
      const named = lines.map((l) => l.slice(0, l.indexOf('=')));
      expect(named).toEqual(VARIABLES.filter((v) => v.sets).map((v) => v.name));
      const config = loadConfig({}, parseDotenv(lines.join('\n')), emptyDir());
      expect(config.fixtures).toEqual(reference.fixtures);
      expect(config.apps).toEqual(reference.apps);
      expect(config.target).toMatchObject({ baseUrl: reference.baseUrl, tokenUrl: reference.tokenUrl, audience: reference.audience });
      expect(maskSecretLines(lines).join('\n')).not.toContain(reference.apps.primary.clientSecret);
    } finally {
      await reference.close();
    }
  });
});

describe('.env.example', () => {
  it('mentions every variable of VARIABLES and sets none of them', () => {
    const text = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8');
    for (const v of VARIABLES) expect(text, v.name).toContain(`# ${v.name}=`);
    expect(Object.keys(parseDotenv(text))).toEqual([]);
  });

  it('shows the default of every numeric variable as it is (the in-flight default moved from 4 to 6 once without it)', () => {
    const text = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8');
    for (const v of VARIABLES.filter((x) => x.kind === 'integer' && /^\d+$/.test(x.default ?? ''))) {
      expect(text, v.name).toContain(`# ${v.name}=${v.default}\n`);
    }
  });
});
