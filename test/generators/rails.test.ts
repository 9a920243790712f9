// No seed may turn a run into an error: every request the generators make for a host must pass
// the client's own safety rails (harness/safety.ts) as they stand against a real host, with a
// short allowlist. Sends nothing; a refusal names the case and the seed that made it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ApiRequest } from '../../harness/client.ts';
import { assertRequestAllowed, type SafetyContext } from '../../harness/safety.ts';
import {
  bulkBoundaryCaseArbs,
  bulkRequestArb,
  differentVariantsArb,
  equalVariantsArb,
  headerBoundaryCaseArbs,
  invalidBulkCaseArbs,
  listingBoundaryCaseArbs,
  invalidListingCaseArbs,
  type BulkRequestOptions,
  type RequestParts,
} from '../../generators/index.ts';

const SEED = Number(process.env.RAILS_SEED ?? Math.floor(Math.random() * 2 ** 31));
/** Cases per generator: each a fresh draw, so this many seeds' worth of requests. */
const RUNS = 1000;
const ALLOWLIST = ['+4915112345678', '+14155550123'];
const HOST: SafetyContext = { profile: 'full', embedded: false, webhookEndpointId: '0190a3b1-7044-7123-8456-789012345678', recipients: ALLOWLIST };
const BULKS = '/v1/businesses/0190a3b1-7044-7123-8456-789012345679/sms/bulk-messages';
const OPTIONS: BulkRequestOptions = {
  senderId: 'Conformance',
  pool: ALLOWLIST,
  // A v7 id whose first group is all digits: the shape that used to read as a number.
  templateId: '11901234-7044-7123-8456-789012345678',
  placeholders: ['first_name', 'code'],
};

function requestOf(parts: RequestParts): ApiRequest {
  return {
    method: 'POST',
    path: BULKS,
    ...(parts.rawBody !== undefined ? { rawBody: parts.rawBody } : parts.body !== undefined ? { json: parts.body } : {}),
  };
}

/** Asserts every value of `arb` passes the rails; the failing case and seed end up in the message. */
function throughRails<T>(arb: fc.Arbitrary<T>, toRequest: (value: T) => ApiRequest): void {
  const outcome = fc.check(
    fc.property(arb, (value) => {
      assertRequestAllowed(toRequest(value), HOST);
    }),
    { seed: SEED, numRuns: RUNS, endOnFailure: true },
  );
  expect(outcome.failed ? `seed ${SEED}: ${String(outcome.errorInstance)} for ${JSON.stringify(outcome.counterexample)?.slice(0, 300)}` : 'passes').toBe('passes');
}

describe(`generated requests pass the host rails (seed ${SEED}, ${RUNS} cases each)`, () => {
  it('valid bodies', () => throughRails(bulkRequestArb(OPTIONS), (body) => requestOf({ body })));

  const invalid = invalidBulkCaseArbs(OPTIONS);
  for (const [kind, arb] of Object.entries(invalid)) {
    // The 1,001-entry body is allowlisted numbers only; fewer cases keep the test quick.
    it(`invalid submission: ${kind}`, () => throughRails(arb, (c) => requestOf(c.request)));
  }

  for (const [kind, arb] of Object.entries(bulkBoundaryCaseArbs(OPTIONS))) {
    it(`boundary submission: ${kind}`, () => throughRails(arb, (c) => requestOf(c.request)));
  }
  for (const [kind, arb] of Object.entries(headerBoundaryCaseArbs())) {
    it(`boundary header: ${kind}`, () => throughRails(arb, (c) => requestOf(c.request)));
  }
  const names = { limit: 'limit', cursor: 'cursor', status: 'status', to: 'to' };
  for (const [kind, arb] of Object.entries({ ...listingBoundaryCaseArbs(names), ...invalidListingCaseArbs(names) })) {
    it(`listing query: ${kind}`, () => throughRails(arb as fc.Arbitrary<{ request: RequestParts }>, (c) => ({ method: 'GET', path: `${BULKS}/x/recipients`, query: c.request.query ?? [] })));
  }

  it('equal spellings of a body (idempotency replays)', () =>
    throughRails(bulkRequestArb(OPTIONS).chain((body) => equalVariantsArb(body)), (rawBody) => requestOf({ rawBody })));
  it('changed bodies (idempotency conflicts)', () =>
    throughRails(bulkRequestArb(OPTIONS).chain((body) => differentVariantsArb(body, { senderId: OPTIONS.senderId, pool: ALLOWLIST })), (v) => requestOf({ body: v.body })));

  it('the rails still refuse a deliverable number outside the allowlist (the test can fail)', () => {
    expect(() => assertRequestAllowed(requestOf({ body: { recipients: [{ to: '+14155550124' }] } }), HOST)).toThrow(/CONFORMANCE_RECIPIENTS/);
    expect(() => assertRequestAllowed(requestOf({ rawBody: '{"recipients":[{"to":"+1415555012' }), HOST)).toThrow(/CONFORMANCE_RECIPIENTS/);
  });
});
