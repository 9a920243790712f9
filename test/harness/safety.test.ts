import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiRequest } from '../../harness/client.ts';
import { HarnessError } from '../../harness/errors.ts';
import { createApiClient } from '../../harness/http-client.ts';
import { addressedNumbers, assertRequestAllowed, makeIdempotencyKey } from '../../harness/safety.ts';
import type { SafetyContext } from '../../harness/safety.ts';
import { BUSINESS_ID, startFakeTarget } from './fixtures/fake-target.ts';
import type { FakeTarget } from './fixtures/fake-target.ts';
import { suiteConfigFor } from './fixtures/suite-config.ts';

const ENDPOINT = '01890a5d-ac96-774b-bcce-b302099a8058';
const OTHER_ENDPOINT = '01890a5d-ac96-774b-bcce-b302099a8059';
const ALLOWED = '+4915112345678';
const bulk = `/v1/businesses/${BUSINESS_ID}/sms/bulk-messages`;
const endpoint = (id: string) => `/v1/businesses/${BUSINESS_ID}/webhook-endpoints/${id}`;

const host: SafetyContext = { profile: 'full', embedded: false, webhookEndpointId: ENDPOINT, recipients: [ALLOWED] };

function refused(request: ApiRequest, context: SafetyContext): boolean {
  try {
    assertRequestAllowed(request, context);
    return false;
  } catch (error) {
    if (error instanceof HarnessError && error.code === 'SAFETY_REFUSED') return true;
    throw error;
  }
}

describe('rails, as rules', () => {
  const cases: Array<{ name: string; request: ApiRequest; context?: SafetyContext; refused: boolean }> = [
    { name: 'safe: GET passes', request: { method: 'GET', path: bulk }, context: { ...host, profile: 'safe' }, refused: false },
    { name: 'safe: POST refused', request: { method: 'POST', path: bulk, json: { recipients: [{ to: ALLOWED }] } }, context: { ...host, profile: 'safe' }, refused: true },
    { name: 'safe: DELETE of the configured endpoint refused', request: { method: 'DELETE', path: endpoint(ENDPOINT) }, context: { ...host, profile: 'safe' }, refused: true },
    { name: 'safe: HEAD refused', request: { method: 'HEAD', path: bulk }, context: { ...host, profile: 'safe' }, refused: true },
    { name: 'safe on the embedded reference: POST refused', request: { method: 'POST', path: bulk, json: {} }, context: { ...host, profile: 'safe', embedded: true }, refused: true },
    { name: 'host: DELETE of the configured endpoint passes', request: { method: 'DELETE', path: endpoint(ENDPOINT) }, refused: false },
    { name: 'host: DELETE of the configured endpoint under another business passes', request: { method: 'DELETE', path: `/v1/businesses/other/webhook-endpoints/${ENDPOINT}` }, refused: false },
    { name: 'host: DELETE of another endpoint refused', request: { method: 'DELETE', path: endpoint(OTHER_ENDPOINT) }, refused: true },
    { name: 'host: DELETE below the endpoint refused', request: { method: 'DELETE', path: `${endpoint(ENDPOINT)}/x` }, refused: true },
    { name: 'host: DELETE of a bulk refused', request: { method: 'DELETE', path: `${bulk}/${ENDPOINT}` }, refused: true },
    { name: 'host without an endpoint: every DELETE refused', request: { method: 'DELETE', path: endpoint(ENDPOINT) }, context: { ...host, webhookEndpointId: undefined }, refused: true },
    { name: 'sandbox: DELETE of a random endpoint passes', request: { method: 'DELETE', path: endpoint(OTHER_ENDPOINT) }, context: { ...host, sandbox: true }, refused: false },
    { name: "sandbox: DELETE of the other business's configured endpoint through the caller's business passes (the cross-business write, which must be refused)", request: { method: 'DELETE', path: endpoint(OTHER_ENDPOINT) }, context: { ...host, sandbox: true, foreignWebhookEndpointId: OTHER_ENDPOINT }, refused: false },
    { name: "sandbox: DELETE of the other business's configured endpoint as that business's own application refused", request: { method: 'DELETE', path: endpoint(OTHER_ENDPOINT), as: 'other' }, context: { ...host, sandbox: true, foreignWebhookEndpointId: OTHER_ENDPOINT }, refused: true },
    { name: "no sandbox: DELETE of the other business's configured endpoint refused", request: { method: 'DELETE', path: endpoint(OTHER_ENDPOINT) }, context: { ...host, foreignWebhookEndpointId: OTHER_ENDPOINT }, refused: true },
    { name: 'embedded: DELETE of a random endpoint passes', request: { method: 'DELETE', path: endpoint(OTHER_ENDPOINT) }, context: { ...host, embedded: true }, refused: false },
    { name: 'host: bulk to an allowed number passes', request: { method: 'POST', path: bulk, json: { recipients: [{ to: ALLOWED }, { to: ALLOWED }] } }, refused: false },
    { name: 'host: bulk to another number refused', request: { method: 'POST', path: bulk, json: { recipients: [{ to: ALLOWED }, { to: '+4915112345679' }] } }, refused: true },
    { name: 'host: bulk with a malformed number refused', request: { method: 'POST', path: bulk, json: { recipients: [{ to: '4915112345679' }] } }, refused: true },
    { name: 'host: number given as a JSON number refused', request: { method: 'POST', path: bulk, json: { recipients: [{ to: 4915112345679 }] } }, refused: true },
    { name: 'host: recipients as bare strings refused', request: { method: 'POST', path: bulk, json: { recipients: ['+4915112345679'] } }, refused: true },
    { name: 'host: other path with a recipient refused too', request: { method: 'POST', path: '/v1/businesses/x/sms/batches', json: { recipients: [{ to: '+4915112345679' }] } }, refused: true },
    { name: 'host: raw JSON body checked like json', request: { method: 'POST', path: bulk, rawBody: '{"recipients":[{"to":"+4915112345679"}]}' }, refused: true },
    { name: 'host: broken raw body with another number refused', request: { method: 'POST', path: bulk, rawBody: '{"recipients":[{"to":"+49 151 1234 5679"' }, refused: true },
    { name: 'host: broken raw body with the allowed number passes', request: { method: 'POST', path: bulk, rawBody: `{"recipients":[{"to":"${ALLOWED}"` }, refused: false },
    { name: 'host: the allowed number without its plus passes (a spelling of it)', request: { method: 'POST', path: bulk, json: { recipients: [{ to: ALLOWED.slice(1) }] } }, refused: false },
    { name: 'host: another number in full-width digits refused (NFKC makes it dialable)', request: { method: 'POST', path: bulk, json: { recipients: [{ to: '+\uFF14\uFF19\uFF11\uFF15\uFF11\uFF11\uFF12\uFF13\uFF14\uFF15\uFF16\uFF17\uFF19' }] } }, refused: true },
    { name: 'host: the allowed number in full-width digits, or with a line feed, passes (a spelling of it)', request: { method: 'POST', path: bulk, json: { recipients: [{ to: ALLOWED.replace(/[0-9]/g, (d) => String.fromCharCode(0xff10 + Number(d))) }, { to: `${ALLOWED}\n` }] } }, refused: false },
    { name: 'host: the allowed number with a space passes', request: { method: 'POST', path: bulk, json: { recipients: [{ to: `${ALLOWED.slice(0, 3)} ${ALLOWED.slice(3)}` }] } }, refused: false },
    { name: 'host: undeliverable, too few digits, passes', request: { method: 'POST', path: bulk, json: { recipients: [{ to: '+1234567' }] } }, refused: false },
    { name: 'host: undeliverable, too many digits, passes', request: { method: 'POST', path: bulk, json: { recipients: [{ to: '+1234567890123456' }] } }, refused: false },
    { name: 'host: undeliverable, leading zero, passes', request: { method: 'POST', path: bulk, json: { recipients: [{ to: '+0491511234567' }] } }, refused: false },
    { name: 'host: another number with a space refused', request: { method: 'POST', path: bulk, json: { recipients: [{ to: '+1 5551234567' }] } }, refused: true },
    { name: 'host: broken raw body cut inside a template id passes (ids are no numbers)', request: { method: 'POST', path: bulk, rawBody: '{"template_id":"11901234-7044-8123-4567-890123456789","recipients":[{"to":"+1' }, refused: false },
    { name: 'host: broken raw body with a cut-off deliverable number refused', request: { method: 'POST', path: bulk, rawBody: '{"recipients":[{"to":"+336123456' }, refused: true },
    { name: 'host: no recipients configured, empty list passes', request: { method: 'POST', path: bulk, json: { recipients: [] } }, context: { ...host, recipients: undefined }, refused: false },
    { name: 'embedded: any number passes', request: { method: 'POST', path: bulk, json: { recipients: [{ to: '+4915112345679' }] } }, context: { ...host, embedded: true }, refused: false },
  ];
  for (const c of cases) {
    it(`${c.name}`, () => {
      expect(refused(c.request, c.context ?? host)).toBe(c.refused);
    });
  }

  it('finds every addressed number', () => {
    expect(addressedNumbers({ recipients: [{ to: '+1' }, '+2', { to: 3, template_variables: { to: '+4' } }], to: '+5' })).toEqual([
      '+1',
      '+2',
      '3',
      '+4',
      '+5',
    ]);
  });

  it('idempotency keys always carry the run id', () => {
    expect(makeIdempotencyKey('conf-run-1', 'ab', 3)).toBe('conf-run-1-k-ab3');
    expect(makeIdempotencyKey('conf-run-1', 'ab', 4, 'replay')).toBe('conf-run-1-replay-ab4');
  });
});

describe('rails inside the client, proved by a recording server', () => {
  let fake: FakeTarget;
  beforeAll(async () => {
    fake = await startFakeTarget();
  });
  afterAll(async () => {
    await fake.close();
  });

  it('profile safe sends nothing but GET (and the token request)', async () => {
    const api = createApiClient(suiteConfigFor(fake, { settings: { profile: 'safe' }, fixtures: { businessId: BUSINESS_ID, webhookEndpointId: ENDPOINT, recipients: [ALLOWED] } }));
    const before = fake.calls.length;
    const attempts: ApiRequest[] = [
      { method: 'GET', path: bulk },
      { method: 'POST', path: bulk, json: { recipients: [{ to: ALLOWED }] } },
      { method: 'PUT', path: bulk, json: {} },
      { method: 'PATCH', path: bulk, json: {} },
      { method: 'DELETE', path: endpoint(ENDPOINT) },
      { method: 'HEAD', path: bulk },
      { method: 'OPTIONS', path: bulk },
    ];
    let refusals = 0;
    for (const request of attempts) {
      try {
        await api.send(request);
      } catch (error) {
        if (error instanceof HarnessError && error.code === 'SAFETY_REFUSED') refusals++;
        else throw error;
      }
    }
    await api.close();
    const calls = fake.calls.slice(before);
    expect(refusals).toBe(attempts.length - 1);
    expect(calls.filter((c) => c.url !== '/oauth2/token').map((c) => c.method)).toEqual(['GET']);
    expect(calls.filter((c) => c.url === '/oauth2/token').every((c) => c.method === 'POST')).toBe(true);
  });

  it('against a host, a refused DELETE or recipient never reaches the server', async () => {
    const api = createApiClient(suiteConfigFor(fake, { fixtures: { businessId: BUSINESS_ID, webhookEndpointId: ENDPOINT, recipients: [ALLOWED] } }));
    await api.token('primary');
    const before = fake.calls.length;
    await expect(api.send({ method: 'DELETE', path: endpoint(OTHER_ENDPOINT) })).rejects.toMatchObject({ code: 'SAFETY_REFUSED' });
    await expect(api.send({ method: 'POST', path: bulk, json: { recipients: [{ to: '+4915112345679' }] } })).rejects.toMatchObject({ code: 'SAFETY_REFUSED' });
    expect(fake.calls.length).toBe(before);
    await api.send({ method: 'DELETE', path: endpoint(ENDPOINT) });
    expect(fake.calls.slice(before).map((c) => `${c.method} ${c.url}`)).toEqual([`DELETE ${endpoint(ENDPOINT)}`]);
    await api.close();
  });
});
