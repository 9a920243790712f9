// Section 5: token endpoint, bearer authentication first, then grant, permission, ownership.
import { describe, expect, it } from 'vitest';
import { RANDOM_V7, basic, freshKey, messageBody, useReference } from './helpers.ts';

const h = useReference();

async function tokenCall(authorization: string | undefined, form: string) {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (authorization) headers.authorization = authorization;
  const res = await fetch(h.ref.tokenUrl, { method: 'POST', headers, body: form });
  return { status: res.status, headers: res.headers, json: (await res.json()) as Record<string, unknown> };
}

describe('token endpoint', () => {
  it('issues a bearer JWT for client credentials with Basic authentication [AUTH-TOKEN-CLIENT-CREDENTIALS]', async () => {
    const { clientId, clientSecret } = h.ref.apps.primary;
    const r = await tokenCall(basic(clientId, clientSecret), 'grant_type=client_credentials&audience=service-external-api');
    expect(r.status).toBe(200);
    expect(r.json.token_type).toBe('Bearer');
    expect(typeof r.json.expires_in).toBe('number');
    const [, payload] = String(r.json.access_token).split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    expect(claims.aud).toBe('service-external-api');
    expect(claims.sub).toBe(clientId);
    expect(claims.exp).toBeGreaterThan(Date.now() / 1000);
    expect(h.ref.tokenUrl).toMatch(/\/oauth2\/token$/);
    expect(new URL(h.ref.tokenUrl).origin).not.toBe(new URL(h.ref.baseUrl).origin);
  });

  it('refuses a wrong secret, a missing Basic header and client_secret_post with 401 invalid_client [AUTH-TOKEN-BASIC]', async () => {
    const { clientId, clientSecret } = h.ref.apps.primary;
    const wrong = await tokenCall(basic(clientId, `${clientSecret}x`), 'grant_type=client_credentials');
    expect(wrong.status).toBe(401);
    expect(wrong.json.error).toBe('invalid_client');
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic/);
    const none = await tokenCall(undefined, `grant_type=client_credentials&client_id=${clientId}&client_secret=${clientSecret}`);
    expect(none.status).toBe(401);
    expect(none.json.error).toBe('invalid_client');
    const grant = await tokenCall(basic(clientId, clientSecret), 'grant_type=password');
    expect(grant.status).toBe(400);
    expect(grant.json.error).toBe('unsupported_grant_type');
  });
});

describe('authentication', () => {
  it('answers 401 authentication_required without an Authorization header on every operation [AUTH-401-MISSING, AUTH-ALL-OPERATIONS]', async () => {
    const b = h.b;
    const calls: Array<[string, string]> = [
      ['POST', h.paths.bulks(b)],
      ['GET', h.paths.bulk(b, h.f.expiredCursorBulkId)],
      ['GET', h.paths.rows(b, h.f.expiredCursorBulkId)],
      ['GET', h.paths.message(b, h.f.messageId)],
      ['GET', h.paths.wallet(b)],
      ['DELETE', h.paths.webhook(b, h.f.webhookEndpointId)],
    ];
    for (const [method, path] of calls) {
      const r = await h.call(method, path, { as: 'none' });
      expect(r.status, `${method} ${path}`).toBe(401);
      expect(r.json.code).toBe('authentication_required');
    }
    expect((await h.control('GET', `/state/webhook-endpoints/${h.f.webhookEndpointId}`)).active).toBe(true);
  });

  it('reads the Bearer scheme name in any letter case [AUTH-BEARER-CASE]', async () => {
    const token = await h.token('primary');
    for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
      expect((await h.call('GET', h.paths.wallet(h.b), { as: { authorization: `${scheme} ${token}` } })).status).toBe(200);
    }
  });

  it('answers 401 to malformed, tampered, expired and Basic credentials [AUTH-401-INVALID, AUTH-BEARER]', async () => {
    const good = await h.token('primary');
    const expired = (await h.control('POST', '/tokens', { app: 'primary', kind: 'expired' })).access_token;
    const tampered = `${good.slice(0, -3)}${good.endsWith('AAA') ? 'BBB' : 'AAA'}`;
    const { clientId, clientSecret } = h.ref.apps.primary;
    for (const as of [{ bearer: 'not-a-jwt' }, { bearer: tampered }, { bearer: expired }, { authorization: basic(clientId, clientSecret) }, { authorization: `Token ${good}` }]) {
      const r = await h.call('GET', h.paths.wallet(h.b), { as });
      expect(r.status).toBe(401);
      expect(r.json.code).toBe('authentication_required');
    }
  });

  it('answers 401 to a token issued for another audience [AUTH-AUDIENCE]', async () => {
    const token = (await h.control('POST', '/tokens', { app: 'primary', kind: 'wrong-audience' })).access_token;
    const r = await h.call('GET', h.paths.wallet(h.b), { as: { bearer: token } });
    expect(r.status).toBe(401);
    const ok = await h.call('GET', h.paths.wallet(h.b), { as: { bearer: (await h.control('POST', '/tokens', { app: 'primary', kind: 'valid' })).access_token } });
    expect(ok.status).toBe(200);
  });

  it('answers 401 before looking at the business or the resource [AUTH-401-FIRST]', async () => {
    const cases = [
      h.call('GET', h.paths.wallet(h.f.otherBusinessId), { as: 'none' }),
      h.call('GET', h.paths.wallet(RANDOM_V7), { as: 'none' }),
      h.call('GET', h.paths.message(h.b, RANDOM_V7), { as: { bearer: 'x.y.z' } }),
    ];
    for (const r of await Promise.all(cases)) expect(r.status).toBe(401);
  });

  it('answers 401 before validating the body, the query, the headers or the path ids [AUTH-401-BEFORE-VALIDATION]', async () => {
    const cases = [
      h.call('POST', h.paths.bulks(h.b), { as: 'none', body: '{not json', headers: { 'content-type': 'application/json' } }),
      h.call('POST', h.paths.bulks(h.f.otherBusinessId), { as: 'none', json: { recipients: [] } }),
      h.call('GET', h.paths.message(RANDOM_V7, 'not-a-uuid'), { as: 'none' }),
      h.call('GET', h.paths.rows(h.b, RANDOM_V7), { as: 'none', query: { limit: '0' } }),
      h.call('GET', h.paths.wallet('not-a-business'), { as: { bearer: 'x.y.z' } }),
    ];
    for (const r of await Promise.all(cases)) expect(r.status).toBe(401);
  });

  it('answers an unknown path with 401 without a token and 404 with one [AUTH-UNKNOWN-PATH]', async () => {
    expect((await h.call('GET', '/v1/nothing-here', { as: 'none' })).status).toBe(401);
    const r = await h.call('GET', '/v1/nothing-here');
    expect(r.status).toBe(404);
    expect(r.json.code).toBe('resource_not_found');
  });
});

describe('authorization order', () => {
  it('refuses a business without a grant with 403 permission_denied on every operation [AUTH-GRANT, AUTH-BUSINESS-SELECTOR]', async () => {
    const o = h.f.otherBusinessId;
    const calls: Array<[string, string, unknown?]> = [
      ['POST', h.paths.bulks(o), messageBody(h)],
      ['GET', h.paths.bulk(o, h.ref.extras.otherBusinessBulkId)],
      ['GET', h.paths.rows(o, h.ref.extras.otherBusinessBulkId)],
      ['GET', h.paths.message(o, h.f.foreignMessageId)],
      ['GET', h.paths.wallet(o)],
      ['DELETE', h.paths.webhook(o, h.ref.extras.otherBusinessWebhookEndpointId)],
    ];
    for (const [method, path, json] of calls) {
      const r = await h.call(method, path, { json, headers: { 'idempotency-key': freshKey() } });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.json.code).toBe('permission_denied');
    }
  });

  it('answers one business without grant alike on every read, for ids of that business and unknown ids [AUTH-GRANT-UNIFORM, AUTH-ORDER]', async () => {
    const o = h.f.otherBusinessId;
    const paths = [
      h.paths.wallet(o),
      h.paths.bulk(o, h.ref.extras.otherBusinessBulkId),
      h.paths.bulk(o, RANDOM_V7),
      h.paths.rows(o, h.ref.extras.otherBusinessBulkId),
      h.paths.rows(o, RANDOM_V7),
      h.paths.message(o, h.f.foreignMessageId),
      h.paths.message(o, RANDOM_V7),
    ];
    const answers = new Set<string>();
    for (const path of paths) {
      const r = await h.call('GET', path);
      answers.add(`${r.status} ${r.json.code}`);
    }
    expect([...answers]).toEqual(['403 permission_denied']);
  });

  it('refuses the limited application the wallet with 403 permission_denied, other operations pass the permission step [AUTH-PERMISSION]', async () => {
    const r = await h.call('GET', h.paths.wallet(h.b), { as: 'limited' });
    expect(r.status).toBe(403);
    expect(r.json.code).toBe('permission_denied');
    expect((await h.call('GET', h.paths.message(h.b, h.f.messageId), { as: 'limited' })).status).toBe(200);
  });

  it('reports the earliest failing step: grant before permission before ownership [AUTH-ORDER]', async () => {
    // No grant on the other business: 403 even for a message id that exists nowhere.
    const noGrant = await h.call('GET', h.paths.message(h.f.otherBusinessId, RANDOM_V7));
    expect(noGrant.status).toBe(403);
    // Limited app, granted but without wallet permission, on the other business: the grant step fails first.
    const limitedOther = await h.call('GET', h.paths.wallet(h.f.otherBusinessId), { as: 'limited' });
    expect(limitedOther.status).toBe(403);
    expect(limitedOther.json.detail).toMatch(/grant/);
    const limitedOwn = await h.call('GET', h.paths.wallet(h.b), { as: 'limited' });
    expect(limitedOwn.json.detail).toMatch(/permission/);
    // Granted and permitted, resource missing: ownership step answers 404.
    expect((await h.call('GET', h.paths.message(h.b, RANDOM_V7))).status).toBe(404);
  });

  it('refuses an unauthorized sender with 403 sender_not_authorized after grant and permission [AUTH-SENDER]', async () => {
    const r = await h.submit(messageBody(h, { from: h.f.unauthorizedSenderId }));
    expect(r.status).toBe(403);
    expect(r.json.code).toBe('sender_not_authorized');
    const other = await h.submit(messageBody(h, { from: h.f.unauthorizedSenderId }), { business: h.f.otherBusinessId });
    expect(other.json.code).toBe('permission_denied');
  });

  it('checks the grant before validating the body (reference choice) [AUTH-VALIDATION-ORDER]', async () => {
    const r = await h.call('POST', h.paths.bulks(h.f.otherBusinessId), { body: '{broken', headers: { 'content-type': 'application/json', 'idempotency-key': freshKey() } });
    expect(r.status).toBe(403);
  });
});
