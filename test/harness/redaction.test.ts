import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HarnessError } from '../../harness/errors.ts';
import { authorizationForReplay } from '../../harness/exchange-record.ts';
import { basicCredentials, createApiClient } from '../../harness/http-client.ts';
import { SecretSet, redactAuthorization, redactBody, redactHeaders, redactText } from '../../harness/redact.ts';
import { BUSINESS_ID, CANARY_SECRET, CANARY_TOKEN, CLIENT_ID, startFakeTarget } from './fixtures/fake-target.ts';
import type { FakeTarget } from './fixtures/fake-target.ts';
import { suiteConfigFor } from './fixtures/suite-config.ts';

const BASIC = basicCredentials({ clientId: CLIENT_ID, clientSecret: CANARY_SECRET });
const CANARIES = [CANARY_SECRET, CANARY_TOKEN, BASIC, encodeURIComponent(CANARY_SECRET)];

function expectClean(text: string): void {
  for (const canary of CANARIES) expect(text).not.toContain(canary);
}

describe('redaction functions', () => {
  it('replaces a secret in every encoding it travels in', () => {
    const secrets = new SecretSet(['a b/"c"&d']);
    expect(redactText('x a b/"c"&d y', secrets)).toBe('x <redacted> y');
    expect(redactText(`x ${encodeURIComponent('a b/"c"&d')} y`, secrets)).toBe('x <redacted> y');
    expect(redactText('x a+b%2F%22c%22%26d y', secrets)).toBe('x <redacted> y');
    expect(redactText(JSON.stringify({ v: 'a b/"c"&d' }), secrets)).toBe('{"v":"<redacted>"}');
  });

  it('keeps only the scheme of Authorization headers', () => {
    expect(redactAuthorization(`Bearer ${CANARY_TOKEN}`)).toBe('Bearer <redacted>');
    expect(redactAuthorization(`basic ${BASIC}`)).toBe('basic <redacted>');
    expect(redactAuthorization('Digest x')).toBe('<redacted>');
    // A value of more parts keeps their count, never their text (check reads a malformed credential).
    expect(redactAuthorization(`Bearer ${CANARY_TOKEN} extra`)).toBe('Bearer <redacted> <redacted>');
    expect(redactHeaders({ Authorization: 'Bearer abc', Cookie: 'k=v', 'x-echo': CANARY_SECRET }, new SecretSet([CANARY_SECRET]))).toEqual({
      Authorization: 'Bearer <redacted>',
      Cookie: '<redacted>',
      'x-echo': '<redacted>',
    });
  });

  it('replays an Authorization header as sent, each secret a shell variable, a malformed one still malformed', () => {
    const secrets = new SecretSet([CANARY_TOKEN, BASIC]);
    expect(authorizationForReplay(`Bearer ${CANARY_TOKEN}`, secrets)).toBe('"Authorization: Bearer $TOKEN"');
    expect(authorizationForReplay(`Basic ${BASIC}`, secrets)).toBe('"Authorization: Basic $BASIC_CREDENTIALS"');
    // The malformed values a check sends around a valid token replay as they were sent.
    expect(authorizationForReplay(`bearer ${CANARY_TOKEN}`, secrets)).toBe('"Authorization: bearer $TOKEN"');
    expect(authorizationForReplay(`Bearer ${CANARY_TOKEN} x"$\``, secrets)).toBe('"Authorization: Bearer $TOKEN x\\"\\$\\`"');
    expect(authorizationForReplay(`Bearer  ${CANARY_TOKEN}`, secrets)).toBe('"Authorization: Bearer  $TOKEN"');
    expect(authorizationForReplay(`${CANARY_TOKEN}`, secrets)).toBe('"Authorization: $TOKEN"');
    expect(authorizationForReplay(`Bearer ${CANARY_TOKEN},Bearer ${CANARY_TOKEN}`, secrets)).toBe('"Authorization: Bearer $TOKEN,Bearer $TOKEN"');
    expect(authorizationForReplay(`Bearer ${CANARY_TOKEN}A`, secrets)).toBe('"Authorization: Bearer ${TOKEN}A"');
    // A value carrying no known secret (tampered, made up) replays as an invalid credential.
    expect(authorizationForReplay(`Bearer ${CANARY_TOKEN.slice(0, -1)}Z`, secrets)).toBe(`'Authorization: Bearer <redacted>'`);
    expect(authorizationForReplay('Digest abc', secrets)).toBe(`'Authorization: <redacted>'`);
    for (const value of [`Bearer ${CANARY_TOKEN} x`, `Bearer ${CANARY_TOKEN.slice(0, -1)}Z`]) expectClean(authorizationForReplay(value, secrets));
  });

  it('redacts before cutting, so a cut never leaves part of a secret', () => {
    const body = `${'x'.repeat(4090)}${CANARY_SECRET}`;
    const cut = redactBody(body, new SecretSet([CANARY_SECRET]))!;
    expect(cut).not.toContain(CANARY_SECRET.slice(0, 6));
    expect(cut.length).toBeLessThan(4200);
  });
});

describe('canary secret and token in the client', () => {
  let fake: FakeTarget;
  beforeAll(async () => {
    fake = await startFakeTarget();
  });
  afterAll(async () => {
    await fake.close();
  });

  it('appear in no exchange, curl line or log line, even when the target echoes them', async () => {
    const config = suiteConfigFor(fake);
    const api = createApiClient(config);
    const responses = [
      await api.send({ method: 'GET', path: `/v1/businesses/${BUSINESS_ID}/wallet/balance?echo=${encodeURIComponent(CANARY_SECRET)}` }),
      await api.send({ method: 'POST', path: `/v1/businesses/${BUSINESS_ID}/sms/bulk-messages`, json: { message: CANARY_SECRET, recipients: [{ to: '+4915112345678' }] } }),
      await api.send({ method: 'GET', path: '/v1/x', headers: { authorization: `Bearer ${CANARY_TOKEN}` } }),
      await api.send({ method: 'GET', path: '/v1/x', as: { bearer: CANARY_TOKEN } }),
      await api.tokenEndpoint({ authorization: `Basic ${BASIC}`, form: { grant_type: 'client_credentials' } }),
    ];
    await api.close();
    // The target really did echo them: the test can fail.
    expect(responses[0]!.text).toContain(CANARY_SECRET);
    expect(responses[0]!.text).toContain(CANARY_TOKEN);
    expect(responses[4]!.text).toContain(CANARY_TOKEN);
    for (const res of responses) expectClean(JSON.stringify(res.exchange));
    expectClean(readFileSync(config.settings.exchangeLogPath, 'utf8'));
    expect(api.redact(responses[0]!.text)).not.toContain(CANARY_TOKEN);
  });

  it('appear in no error message, whatever fails', async () => {
    const refusing = await startFakeTarget({ refuseCredentials: true });
    const errors: string[] = [];
    const api = createApiClient(suiteConfigFor(refusing));
    try {
      await api.token('primary');
    } catch (error) {
      errors.push((error as HarnessError).message);
    }
    await api.close();
    await refusing.close();
    const down = createApiClient(suiteConfigFor({ baseUrl: refusing.baseUrl, tokenUrl: `${refusing.tokenUrl}?client_secret=${CANARY_SECRET}` }));
    try {
      await down.token('primary');
    } catch (error) {
      errors.push((error as HarnessError).message);
    }
    const res = await down.send({ method: 'GET', path: `/v1/x?s=${CANARY_SECRET}`, as: 'none' });
    errors.push(res.exchange.transportError ?? '', JSON.stringify(res.exchange));
    await down.close();
    expect(errors).toHaveLength(4);
    for (const text of errors) expectClean(text);
  });
});

describe("the other business's application (CONFORMANCE_OTHER_CLIENT_SECRET)", () => {
  it('is a secret of the run and of the client, redacted wherever it shows up', async () => {
    const { configSecrets } = await import('../../harness/config.ts');
    const canary = 'other-tenant-canary-secret-7f3a';
    const apps = { primary: { clientId: CLIENT_ID, clientSecret: CANARY_SECRET }, other: { clientId: 'other-app', clientSecret: canary } };
    expect(configSecrets(apps)).toContain(canary);
    const fake = await startFakeTarget();
    try {
      const api = createApiClient({ ...suiteConfigFor(fake), apps });
      const basic = basicCredentials(apps.other);
      expect(api.redact(`echo ${canary} and ${basic}`)).toBe('echo <redacted> and <redacted>');
      await api.close();
    } finally {
      await fake.close();
    }
  });
});
