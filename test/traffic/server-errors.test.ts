// check on server errors: a 5xx (503, the host's pacing or a brief outage, excepted) to a request
// that is the caller's fault, or that one reading of the document makes so, fails on every
// operation: a blank message (accepted or refused, never a 500; blank-message-500's traffic), a
// parameter, body or Accept the operation does not take, a page size of no integer form, a repeated
// call. A 5xx to a request the rules find valid is the unexpected failure section 7 allows: noted.
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startReference } from '../../reference/index.ts';
import { readTrafficEnv } from '../../traffic/env.ts';
import { judgeTraffic } from '../../traffic/judge.ts';
import type { TrafficExchange } from '../../traffic/model.ts';
import { authorisedClient, envLines } from './client.ts';
import { conformance, tempDir, writeJson } from './support.ts';

const VALIDITY = 'traffic/validation/invalid-request-refused';

/** A token, a blank-message submission and a wallet read, recorded against the reference with `defects`. */
async function blankMessageSession(defects: string[]): Promise<any> {
  const reference = await startReference({ defects });
  try {
    const { client, bearer } = await authorisedClient(reference);
    const f = reference.fixtures;
    const body = JSON.stringify({ from: f.senderId, classification: 'transactional', message: '   ', recipients: [{ to: f.recipients![0] }] });
    await client.send('POST', client.api(`/businesses/${f.businessId}/sms/bulk-messages`), { ...bearer, 'content-type': 'application/json', 'idempotency-key': `se-${randomUUID()}` }, body);
    await client.send('GET', client.api(`/businesses/${f.businessId}/wallet/balance`), bearer);
    const dir = tempDir();
    const file = writeJson(dir, 'session.har', client.har);
    writeFileSync(join(dir, 'fixtures.env'), envLines(reference));
    const outcome = await conformance(['check', file, '--env-file', join(dir, 'fixtures.env'), '--report-dir', join(dir, 'reports')]);
    return { code: outcome.code, report: JSON.parse(readFileSync(join(dir, 'reports', 'report.json'), 'utf8')) };
  } finally {
    await reference.close();
  }
}

const checkOf = (report: any, id: string) => report.topics.flatMap((t: any) => t.checks).find((c: any) => c.id === id);

describe('check on the traffic of blank-message-500', () => {
  it('fails the 500 to a blank message under VAL-MESSAGE-LENGTH', async () => {
    const { code, report } = await blankMessageSession(['blank-message-500']);
    expect(code).toBe(1);
    const check = checkOf(report, VALIDITY);
    expect(check.status).toBe('fail');
    expect(check.failure.requirement).toBe('VAL-MESSAGE-LENGTH');
  });

  it('passes the same session against the faithful reference (the blank message accepted)', async () => {
    const { code, report } = await blankMessageSession([]);
    expect(checkOf(report, VALIDITY).status).toBe('pass');
    // The answer recorded as the reading it is (spec/readings.ts, blank-message).
    expect(report.readings.map((r: any) => `${r.point} ${r.choice}`)).toContain('blank-message accepted');
    expect(code).toBe(0);
  });
});

describe('a 5xx to a valid request, on every operation', () => {
  const business = '019a0000-0000-7000-8000-000000000001';
  const api = `http://127.0.0.1:9/v1/businesses/${business}`;
  const bulk = '019a0000-0000-7000-8000-0000000000b1';
  const submission = { from: 'Acme', classification: 'transactional', message: 'hi', recipients: [{ to: '+447700900001' }] };
  const accepted = { id: bulk, business_id: business, from: 'Acme', classification: 'transactional', status: 'queued', settled: false, message: 'hi', template: null, accepted_at: '2026-01-01T00:00:00Z', intake: { good: 1, bad: 0, empty: 0 }, submission: null, delivery_summary: null, warnings: [] };
  let index = 0;
  const ex = (method: string, url: string, status: number, body?: unknown, requestBody?: unknown, headers: Record<string, string> = {}, responseHeaders: Record<string, string> = {}): TrafficExchange => {
    index += 1;
    const problem = { type: `https://p.test/${status === 503 ? 'service_unavailable' : 'internal_error'}`, title: 'Failure', status, detail: 'failed', code: status === 503 ? 'service_unavailable' : 'internal_error', request_id: `r${index}`, instance: '/x' };
    return {
      index,
      source: `test ${index}`,
      request: { method, url, headers: { authorization: 'Bearer tok-aaaaaaaaaaaa', ...(requestBody !== undefined ? { 'content-type': 'application/json' } : {}), ...headers }, ...(requestBody !== undefined ? { body: JSON.stringify(requestBody) } : {}) },
      response: { status, headers: { 'x-request-id': `r${index}`, 'content-type': status >= 400 ? 'application/problem+json' : 'application/json', ...(status === 503 ? { 'retry-after': '1' } : {}), ...responseHeaders }, body: JSON.stringify(body ?? problem) },
    };
  };
  const judged = (traffic: TrafficExchange[]) => judgeTraffic(traffic, { env: readTrafficEnv(undefined) }).result.topics.flatMap((t) => t.checks);
  const broken = (traffic: TrafficExchange[]) => judged(traffic).filter((c) => c.status === 'fail').map((c) => `${c.id} ${c.failure?.requirement}`);

  it.each([
    ['a row listing with a page size of no integer form', () => ex('GET', `${api}/sms/bulk-messages/${bulk}/messages?limit=-1`, 500)],
    ['a wallet read with a query parameter it does not take', () => ex('GET', `${api}/wallet/balance?verbose=1`, 500)],
    ['a message read asking for XML only', () => ex('GET', `${api}/sms/messages/${bulk}`, 500, undefined, undefined, { accept: 'application/xml' })],
    ['a deactivation with a body', () => ex('DELETE', `${api}/webhook-endpoints/${bulk}`, 500, undefined, { force: true })],
  ])('fails a 5xx to %s under PROB-NO-5XX-FOR-CLIENT-FAULT', (_, make) => {
    expect(broken([make()])).toEqual([`${VALIDITY} PROB-NO-5XX-FOR-CLIENT-FAULT`]);
  });

  it('a fault of the request keeps its own rule beside a parameter the operation does not take', () => {
    const page = { items: [], pagination: { limit: 5000, has_more: false, next_cursor: null } };
    expect(broken([ex('GET', `${api}/sms/bulk-messages/${bulk}/messages?limit=5000&x=1`, 200, page)])).toContain(`${VALIDITY} CUR-MAX-LIMIT`);
    expect(broken([ex('GET', `${api}/sms/bulk-messages/${bulk}/messages?cursor=&x=1`, 500)])).toEqual([`${VALIDITY} CUR-EMPTY`]);
  });

  it('fails a 5xx to a repeated submission under a used key (concurrent-same-key-500)', () => {
    const traffic = [ex('POST', `${api}/sms/bulk-messages`, 202, accepted, submission, { 'idempotency-key': 'k2' }, { location: `${api}/sms/bulk-messages/${bulk}` }), ex('POST', `${api}/sms/bulk-messages`, 500, undefined, submission, { 'idempotency-key': 'k2' })];
    expect(broken(traffic)).toEqual(['traffic/idempotency/replay PROB-NO-5XX-FOR-CLIENT-FAULT']);
  });

  it('notes, never fails, a 500 to a valid request (the unexpected failure section 7 allows) and a 503', () => {
    const valid = [ex('GET', `${api}/wallet/balance`, 500), ex('POST', `${api}/sms/bulk-messages`, 500, undefined, submission, { 'idempotency-key': 'k3' }), ex('GET', `${api}/wallet/balance`, 503)];
    expect(broken(valid)).toEqual([]);
    expect(judged(valid).find((c) => c.id === VALIDITY)?.notes.join('\n')).toContain('unexpected failure');
  });
});

describe('a 5xx under a key, then its 202', () => {
  it('notes, never fails, a 5xx before the key’s first 202: a retry after a failure looks the same as a concurrent call (4.1 rule 6 not shown)', () => {
    const api = 'http://127.0.0.1:9/v1/businesses/019a0000-0000-7000-8000-000000000001';
    const bulk = '019a0000-0000-7000-8000-0000000000b1';
    const submission = { from: 'Acme', classification: 'transactional', message: 'hi', recipients: [{ to: '+447700900001' }] };
    const accepted = { id: bulk, business_id: '019a0000-0000-7000-8000-000000000001', from: 'Acme', classification: 'transactional', status: 'queued', settled: false, message: 'hi', template: null, accepted_at: '2026-01-01T00:00:00Z', intake: { good: 1, bad: 0, empty: 0 }, submission: null, delivery_summary: null, warnings: [] };
    const headers = { authorization: 'Bearer tok-aaaaaaaaaaaa', 'content-type': 'application/json', 'idempotency-key': 'same' };
    const traffic: TrafficExchange[] = [
      { index: 1, source: 'c 1', request: { method: 'POST', url: `${api}/sms/bulk-messages`, headers, body: JSON.stringify(submission) }, response: { status: 500, headers: { 'x-request-id': 'r1', 'content-type': 'application/problem+json' }, body: JSON.stringify({ type: 'https://p.test/internal_error', title: 'Failure', status: 500, detail: 'failed', code: 'internal_error', request_id: 'r1', instance: '/x' }) } },
      { index: 2, source: 'c 2', request: { method: 'POST', url: `${api}/sms/bulk-messages`, headers, body: JSON.stringify(submission) }, response: { status: 202, headers: { 'x-request-id': 'r2', 'content-type': 'application/json', location: `${api}/sms/bulk-messages/${bulk}` }, body: JSON.stringify(accepted) } },
    ];
    const checks = judgeTraffic(traffic, { env: readTrafficEnv(undefined) }).result.topics.flatMap((t) => t.checks);
    expect(checks.filter((c) => c.status === 'fail').map((c) => c.id)).toEqual([]);
    expect(checks.find((c) => c.id === 'traffic/idempotency/replay')?.notes.join('\n')).toContain('4.1 rule 6 is not shown');
  });
});
