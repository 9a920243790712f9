// The matrix compares every header of a foreign object's answer with an unknown one's, setting aside
// only what its host shows to vary per response (learned from answers to objects that exist nowhere),
// not a list of names: blind-foreign-bulk-404-content-location, blind-foreign-message-404-last-modified.
import { describe, expect, it } from 'vitest';
import type { ApiResponse } from '../../harness/client.ts';
import { headerDifferences, headerVariation, type Answer } from '../../suites/support/answers.ts';

let n = 0;
/** A 404 as a host answers it for `id`, with its own request id, date and extra headers. */
function answer(id: string, extra: Record<string, string> = {}, body = `{"code":"resource_not_found","instance":"/x/${id}"}`): Answer {
  n++;
  const headers = { 'content-type': 'application/problem+json', 'x-request-id': `req-${n}${'0'.repeat(n % 3)}`, date: `Thu, 26 Nov 2026 23:0${n % 10}:00 GMT`, 'content-length': String(body.length + (n % 3)), connection: 'keep-alive', ...extra };
  const res = { status: 404, headers, text: body, json: JSON.parse(body), exchange: { request: { headers: {} } } } as unknown as ApiResponse;
  return { res, ids: [id] };
}

const FOREIGN = '0196f000-0000-7000-8000-00000000f0f0';
const unknown = (i: number, extra?: Record<string, string>) => answer(`0196f000-0000-7000-8000-00000000000${i}`, extra);

describe('headers compared between a foreign and an unknown object', () => {
  it('a header only the foreign answer carries tells them apart', () => {
    const variation = headerVariation([unknown(1), unknown(2), unknown(3)]);
    const diffs = headerDifferences(answer(FOREIGN, { 'content-location': `/v1/businesses/other/sms/bulk-messages/${FOREIGN}` }), unknown(4), variation);
    expect(diffs).toEqual([expect.stringMatching(/^header content-location .* only on the first$/)]);
    expect(headerDifferences(answer(FOREIGN, { 'last-modified': 'Wed, 25 Nov 2026 10:00:00 GMT' }), unknown(5), variation)).toHaveLength(1);
  });

  it('request ids, dates, lengths of equal bodies and connection headers are set aside', () => {
    const variation = headerVariation([unknown(1), unknown(2)]);
    expect(headerDifferences(answer(FOREIGN), unknown(3), variation)).toEqual([]);
  });

  it('what the host varies among nonexistent objects (a counter, a header sent now and then) is set aside, derived', () => {
    const samples = [unknown(1, { 'ratelimit-remaining': '57', 'x-sometimes': 'a' }), unknown(2, { 'ratelimit-remaining': '56' }), unknown(3, { 'ratelimit-remaining': '55' })];
    const variation = headerVariation(samples);
    expect([...variation.value]).toContain('ratelimit-remaining');
    expect([...variation.presence]).toContain('x-sometimes');
    expect(headerDifferences(answer(FOREIGN, { 'ratelimit-remaining': '12', 'x-sometimes': 'b' }), unknown(4, { 'ratelimit-remaining': '11' }), variation)).toEqual([]);
    // A value the host keeps the same for every nonexistent object is compared.
    const fixed = headerVariation([unknown(5, { 'cache-control': 'no-store' }), unknown(6, { 'cache-control': 'no-store' })]);
    expect(headerDifferences(answer(FOREIGN, { 'cache-control': 'private, max-age=60' }), unknown(7, { 'cache-control': 'no-store' }), fixed)).toEqual([expect.stringMatching(/^header cache-control/)]);
  });
});
