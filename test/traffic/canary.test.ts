// Secrets planted in a HAR (a bearer token, Basic credentials, a client secret in a token form,
// the token endpoint's access_token, one echoed in a problem's detail so a failure shows it as
// evidence) never reach a report file or the console.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { conformance, tempDir, writeJson } from './support.ts';

const BEARER = 'canary-bearer-7f3a9c2e51d84b06';
const SECRET = 'canary-client-secret-c9e1d2f3';
const ACCESS = 'canary-access-token-5b6c7d8e9f';
const EXPIRED = 'canary-expired-token-0a1b2c3d';
const BASIC = Buffer.from(`canary-client:${SECRET}`).toString('base64');
const API = 'http://127.0.0.1:9/v1/businesses/019a0000-0000-7000-8000-000000000001';
const CANARIES = [BEARER, SECRET, ACCESS, BASIC, EXPIRED];

const entry = (method: string, url: string, headers: Record<string, string>, status: number, responseHeaders: Record<string, string>, body: string, postData?: string) => ({
  startedDateTime: new Date().toISOString(),
  request: { method, url, headers: Object.entries(headers).map(([name, value]) => ({ name, value })), ...(postData ? { postData: { mimeType: 'application/x-www-form-urlencoded', text: postData } } : {}) },
  response: { status, headers: Object.entries(responseHeaders).map(([name, value]) => ({ name, value })), content: { text: body } },
});

function plantedHar() {
  const problem = (detail: string) => JSON.stringify({ type: 'https://problems.test/authentication_required', title: 'Authentication required', status: 401, detail, code: 'authentication_required', request_id: 'r-1' });
  return {
    log: {
      version: '1.2',
      entries: [
        entry('POST', 'http://127.0.0.1:8/oauth2/token', { Authorization: `Basic ${BASIC}` }, 200, { 'content-type': 'application/json' }, JSON.stringify({ access_token: ACCESS, token_type: 'Bearer', expires_in: 300 }), `grant_type=client_credentials&client_secret=${SECRET}`),
        // The token sent to another origin: a client-side finding that must not show the token.
        entry('GET', `http://127.0.0.1:7/elsewhere?access_token=${ACCESS}`, { Authorization: `Bearer ${ACCESS}` }, 200, {}, ''),
        // A wallet read whose balances break two rules, so evidence (with headers) is written.
        entry('GET', `${API}/wallet/balance`, { Authorization: `Bearer ${BEARER}`, 'X-Request-Id': 'r-0' }, 200, { 'content-type': 'application/json', 'x-request-id': 'r-0' }, JSON.stringify({ business_id: '019a0000-0000-7000-8000-000000000001', business_name: 'Canary', currency: 'GBP', current_balance: '1.00', available_balance: '2.00', reserved_balance: '0.50', as_of: '2026-01-01T00:00:00Z' })),
        // A problem whose detail echoes the secret and the token: PROB-DETAIL-NO-SECRETS fails with this as evidence.
        entry('GET', `${API}/wallet/balance`, { Authorization: `Bearer ${EXPIRED}` }, 401, { 'content-type': 'application/problem+json', 'x-request-id': 'r-1' }, problem(`token ${EXPIRED} refused; secret ${SECRET}; bearer ${BEARER}`)),
      ],
    },
  };
}

describe('check keeps the secrets of the traffic out of everything it writes', () => {
  it('no canary in any report file, stdout or stderr', async () => {
    const dir = tempDir();
    const har = writeJson(dir, 'planted.har', plantedHar());
    writeFileSync(join(dir, 'f.env'), `CONFORMANCE_EXPIRED_TOKEN=${EXPIRED}\nCONFORMANCE_CLIENT_SECRET=${SECRET}\n`);
    const reports = join(dir, 'reports');
    const outcome = await conformance(['check', har, '--env-file', join(dir, 'f.env'), '--report-dir', reports]);
    expect(outcome.err).toEqual([]);
    expect(outcome.code).toBe(1);
    const report = JSON.parse(readFileSync(join(reports, 'report.json'), 'utf8'));
    const failed = report.topics.flatMap((t: any) => t.checks.filter((c: any) => c.status === 'fail').map((c: any) => c.failure.requirement));
    expect(failed).toEqual(expect.arrayContaining(['WAL-RESERVED-ZERO', 'PROB-DETAIL-NO-SECRETS']));
    expect(report.advisories.map((a: any) => a.check)).toEqual(expect.arrayContaining(['client/token-sent-elsewhere', 'client/token-request-without-basic']));
    const texts = [outcome.out.join('\n'), ...readdirSync(reports).map((f) => readFileSync(join(reports, f), 'utf8'))];
    for (const text of texts) for (const canary of CANARIES) expect(text.includes(canary), canary).toBe(false);
    // The evidence is there, redacted.
    expect(JSON.stringify(report)).toContain('Bearer <redacted>');
  });
});
