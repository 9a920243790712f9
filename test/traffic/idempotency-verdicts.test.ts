// check's idempotency verdicts where a wrong one is easy: an identical repeat of an accepted
// submission refused for no fault of its own (identical-repeat-refused-422's traffic fails
// IDEM-REPLAY; a refusal for the repeat's own token, grant or header is a reading), and a 5xx to a
// call under a key that ran beside the key's 202 (concurrent-same-key-500's own exchange log fails
// PROB-NO-5XX-FOR-CLIENT-FAULT however its lines are ordered; a 5xx answered before the 202's request
// was sent is a retry after a failure, noted).
import { randomInt, randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { envLinesFor } from '../../harness/config.ts';
import { startReference } from '../../reference/index.ts';
import { readTrafficEnv } from '../../traffic/env.ts';
import { judgeTraffic } from '../../traffic/judge.ts';
import type { TrafficExchange } from '../../traffic/model.ts';
import { cli } from '../harness/fixtures/spawn.ts';
import { authorisedClient, envLines } from './client.ts';
import { conformance, tempDir, writeJson } from './support.ts';

const REPLAY = 'traffic/idempotency/replay';
const checksOf = (report: any): any[] => report.topics.flatMap((t: any) => t.checks);
const checkOf = (report: any, id: string) => checksOf(report).find((c: any) => c.id === id);
const failed = (report: any) => checksOf(report).filter((c: any) => c.status === 'fail').map((c: any) => `${c.id} ${c.failure?.requirement}`);

async function checkFiles(files: string[], envFile?: string): Promise<{ code: number; report: any }> {
  const dir = tempDir();
  const outcome = await conformance(['check', ...files, ...(envFile ? ['--env-file', envFile] : []), '--report-dir', join(dir, 'reports')]);
  return { code: outcome.code, report: JSON.parse(readFileSync(join(dir, 'reports', 'report.json'), 'utf8')) };
}

/** A submission, the same bytes again under its key, then another submission (a later server time), recorded as HAR. */
async function repeatSession(defects: string[]): Promise<{ code: number; report: any; repeat: number }> {
  const reference = await startReference({ defects });
  try {
    const { client, bearer } = await authorisedClient(reference);
    const f = reference.fixtures;
    const headers = { ...bearer, 'content-type': 'application/json' };
    const submit = client.api(`/businesses/${f.businessId}/sms/bulk-messages`);
    const body = JSON.stringify({ from: f.senderId, classification: 'transactional', message: 'identical repeat', recipients: [{ to: f.recipients![0] }] });
    const key = `ir-${randomUUID()}`;
    await client.send('POST', submit, { ...headers, 'idempotency-key': key }, body);
    const repeat = await client.send('POST', submit, { ...headers, 'idempotency-key': key }, body);
    await client.send('POST', submit, { ...headers, 'idempotency-key': `ir-${randomUUID()}` }, JSON.stringify({ from: f.senderId, classification: 'transactional', message: 'later', recipients: [{ to: f.recipients![0] }] }));
    const dir = tempDir();
    const har = writeJson(dir, 'session.har', client.har);
    writeFileSync(join(dir, 'fixtures.env'), envLines(reference));
    return { ...(await checkFiles([har], join(dir, 'fixtures.env'))), repeat: repeat.status };
  } finally {
    await reference.close();
  }
}

describe('an identical repeat of an accepted submission, refused', () => {
  it('fails IDEM-REPLAY on the traffic of identical-repeat-refused-422 (the repeat refused 422 within seven days)', async () => {
    const { code, report, repeat } = await repeatSession(['identical-repeat-refused-422']);
    expect(repeat).toBe(422);
    expect(checkOf(report, REPLAY).status).toBe('fail');
    expect(checkOf(report, REPLAY).failure.requirement).toBe('IDEM-REPLAY');
    expect(code).toBe(1);
  }, 60_000);

  it('passes the same session against the faithful reference (the original replayed)', async () => {
    const { code, report, repeat } = await repeatSession([]);
    expect(repeat).toBe(202);
    expect(checkOf(report, REPLAY).status).toBe('pass');
    expect(failed(report)).toEqual([]);
    expect(code).toBe(0);
  }, 60_000);
});

const BUSINESS = '019a0000-0000-7000-8000-000000000001';
const SUBMIT = `http://127.0.0.1:9/v1/businesses/${BUSINESS}/sms/bulk-messages`;
const BULK = '019a0000-0000-7000-8000-0000000000b1';
const submissionOf = (message: string) => JSON.stringify({ from: 'Acme', classification: 'transactional', message, recipients: [{ to: '+447700900001' }] });
const accepted = (id: string, at: string, message: string) => JSON.stringify({ id, business_id: BUSINESS, from: 'Acme', classification: 'transactional', status: 'queued', settled: false, message, template: null, accepted_at: at, intake: { good: 1, bad: 0, empty: 0 }, submission: null, delivery_summary: null, warnings: [] });
const problem = (status: number, code: string, id: string) => JSON.stringify({ type: `https://p.test/${code}`, title: code, status, detail: 'refused', code, request_id: id, instance: '/x' });
let n = 0;

/** A submission under `key` answered `status`, with the times the recording gives (ms from an origin). */
function submitted(key: string, status: number, options: { code?: string; headers?: Record<string, string>; message?: string; times?: [number, number]; bulk?: string; acceptedAt?: string } = {}): TrafficExchange {
  n += 1;
  const id = `r${n}`;
  const bulk = options.bulk ?? BULK;
  const origin = Date.UTC(2026, 0, 1);
  return {
    index: n,
    source: `hand ${n}`,
    ...(options.times ? { startedAt: origin + options.times[0], endedAt: origin + options.times[1] } : {}),
    request: { method: 'POST', url: SUBMIT, headers: { authorization: 'Bearer tok-aaaaaaaaaaaa', 'content-type': 'application/json', 'idempotency-key': key, ...options.headers }, body: submissionOf(options.message ?? 'hi') },
    response: {
      status,
      headers: { 'x-request-id': id, 'content-type': status === 202 ? 'application/json' : 'application/problem+json', ...(status === 202 ? { location: `${SUBMIT}/${bulk}` } : {}) },
      body: status === 202 ? accepted(bulk, options.acceptedAt ?? '2026-01-01T00:00:00Z', options.message ?? 'hi') : problem(status, options.code ?? 'internal_error', id),
    },
  };
}

const judged = (traffic: TrafficExchange[]) => judgeTraffic(traffic, { env: readTrafficEnv(undefined) }).result;
const failures = (traffic: TrafficExchange[]) => judged(traffic).topics.flatMap((t) => t.checks).filter((c) => c.status === 'fail').map((c) => `${c.id} ${c.failure?.requirement}`);
const replayOf = (traffic: TrafficExchange[]) => judged(traffic).topics.flatMap((t) => t.checks).find((c) => c.id === REPLAY)!;

describe('an identical repeat refused, by hand', () => {
  /** The original, its identical repeat answered `status`, and a later acceptance that stamps the server time a day on. */
  const repeated = (status: number, code: string, headers: Record<string, string> = {}) => {
    const key = `k-${status}-${code}-${n}`;
    return [submitted(key, 202), submitted(key, status, { code, headers }), submitted(`later-${n}`, 202, { bulk: '019a0000-0000-7000-8000-0000000000c3', acceptedAt: '2026-01-02T00:00:00Z', message: 'later' })];
  };

  it.each([
    [400, 'validation_failed'],
    [422, 'invalid_recipient'],
    [422, 'template_not_active'],
  ])('fails IDEM-REPLAY for %i %s: the same bytes were accepted, so the body has no fault', (status, code) => {
    expect(failures(repeated(status, code))).toEqual([`${REPLAY} IDEM-REPLAY`]);
  });

  it('fails it too when the repeat carries an invalid X-Request-Id (4.0 replaces one, never refuses it)', () => {
    expect(failures(repeated(400, 'validation_failed', { 'x-request-id': 'not valid!' }))).toEqual([`${REPLAY} IDEM-REPLAY`]);
  });

  it.each([
    [401, 'authentication_required', {}],
    [403, 'permission_denied', {}],
    [403, 'sender_not_authorized', {}],
    [404, 'resource_not_found', {}],
    [400, 'validation_failed', { 'content-type': 'text/plain' }],
  ])('records a refusal %i %s for a fault of the repeat’s own (token, grant, business, a header the original had right) as a reading', (status, code, headers) => {
    const traffic = repeated(status, code, headers);
    expect(failures(traffic)).toEqual([]);
    expect(judged(traffic).readings.map((r) => `${r.point} ${r.choice}`)).toContain('other-fault-first other-fault');
  });
});

describe('an identical repeat refused while the key’s submission was in flight', () => {
  it.each([
    [409, 'idempotency_conflict'],
    [422, 'invalid_recipient'],
  ])('notes %i %s to a call whose request overlapped the 202’s (concurrent calls: 4.1 rule 6 not shown, as the active check reads them)', (status, code) => {
    const key = `inflight-${status}`;
    const traffic = [submitted(key, 202, { times: [0, 20] }), submitted(key, status, { code, times: [5, 8] }), submitted(`later-${key}`, 202, { bulk: '019a0000-0000-7000-8000-0000000000c4', acceptedAt: '2026-01-02T00:00:00Z', message: 'later', times: [30, 40] })];
    expect(failures(traffic)).toEqual([]);
    expect(replayOf(traffic).notes.join('\n')).toContain('in flight');
  });

  it('still fails it once the 202 had come back before the repeat was sent', () => {
    const key = 'after-202';
    const traffic = [submitted(key, 202, { times: [0, 20] }), submitted(key, 422, { code: 'invalid_recipient', times: [25, 30] }), submitted(`later-${key}`, 202, { bulk: '019a0000-0000-7000-8000-0000000000c5', acceptedAt: '2026-01-02T00:00:00Z', message: 'later', times: [30, 40] })];
    expect(failures(traffic)).toEqual([`${REPLAY} IDEM-REPLAY`]);
  });
});

describe('a 5xx under a key and the key’s 202, by their times', () => {
  it('fails a 5xx recorded before the 202 whose request it overlapped (a concurrent call), naming both', () => {
    const traffic = [submitted('c1', 500, { times: [1, 3] }), submitted('c1', 202, { times: [0, 20] })];
    expect(failures(traffic)).toEqual([`${REPLAY} PROB-NO-5XX-FOR-CLIENT-FAULT`]);
    const check = replayOf(traffic);
    expect(check.failure?.expected).toContain('concurrent');
    expect(check.evidence.map((e) => e.response?.status)).toEqual([500, 202]);
  });

  it('notes a 5xx answered before the 202’s request was sent: a retry after a failure (4.1 rule 6 not shown)', () => {
    const traffic = [submitted('c2', 500, { times: [0, 5] }), submitted('c2', 202, { times: [10, 20] })];
    expect(failures(traffic)).toEqual([]);
    expect(replayOf(traffic).notes.join('\n')).toContain('a retry after a failure');
  });

  it('gives a gap within a HAR’s millisecond to the retry (its start may be cut to the millisecond)', () => {
    const traffic = [submitted('c6', 500, { times: [0, 5.6] }), submitted('c6', 202, { times: [5, 20] })];
    expect(failures(traffic)).toEqual([]);
  });

  it('notes it too when it is recorded after the 202 but the times show it came first', () => {
    const traffic = [submitted('c3', 202, { times: [10, 20] }), submitted('c3', 500, { times: [0, 5] })];
    expect(failures(traffic)).toEqual([]);
  });

  it('without times keeps the order: a 5xx before the 202 noted (saying the times are missing), one after failed', () => {
    const before = [submitted('c4', 500), submitted('c4', 202)];
    expect(failures(before)).toEqual([]);
    expect(replayOf(before).notes.join('\n')).toContain('no times');
    expect(failures([submitted('c5', 202), submitted('c5', 500)])).toEqual([`${REPLAY} PROB-NO-5XX-FOR-CLIENT-FAULT`]);
  });
});

describe.each(['embedded', 'host'] as const)('check on the %s exchange log of concurrent-same-key-500', (mode) => {
  const seed = randomInt(1, 2 ** 31 - 1);

  /**
   * The run's own log of idempotency/concurrent-same-key against the reference with `defects`:
   * embedded, or served as a host the run knows only through an env file (no control origin).
   */
  async function concurrentLog(defects: string[]): Promise<{ log: string; envFile?: string }> {
    const dir = tempDir();
    const check = ['--check', 'idempotency/concurrent-same-key', '--seed', String(seed), '--report-dir', join(dir, 'run'), '--quiet'];
    if (mode === 'embedded') {
      const run = await cli(['run', ...check, ...(defects.length > 0 ? ['--defects', defects.join(',')] : [])], {});
      expect(run.code, `seed ${seed}: ${run.stderr}`).toBe(defects.length > 0 ? 1 : 0);
      return { log: join(dir, 'run', 'exchanges.jsonl') };
    }
    const reference = await startReference({ defects });
    try {
      const envFile = join(dir, 'host.env');
      writeFileSync(envFile, `${envLinesFor(reference).join('\n')}\n`, { mode: 0o600 });
      const run = await cli(['run', '--env-file', envFile, ...check], {});
      expect(run.code, `seed ${seed}: ${run.stderr}`).toBe(defects.length > 0 ? 1 : 0);
      return { log: join(dir, 'run', 'exchanges.jsonl'), envFile };
    } finally {
      await reference.close();
    }
  }

  it(`fails PROB-NO-5XX-FOR-CLIENT-FAULT, with the 5xx recorded before the 202 too (seed ${seed})`, async () => {
    const { log, envFile } = await concurrentLog(['concurrent-same-key-500']);
    const lines = readFileSync(log, 'utf8').split('\n').filter((l) => l.trim() !== '');
    const status = (line: string) => (JSON.parse(line) as { response?: { status: number } }).response?.status ?? 0;
    expect(lines.some((l) => status(l) >= 500), `seed ${seed}`).toBe(true);
    // The log as written, and with every 5xx moved before the 202 (the order a recorder may keep).
    const reordered = join(tempDir(), 'reordered.jsonl');
    writeFileSync(reordered, `${[...lines.filter((l) => status(l) >= 500), ...lines.filter((l) => status(l) < 500)].join('\n')}\n`);
    for (const file of [log, reordered]) {
      const { code, report } = await checkFiles([file], envFile);
      expect(failed(report), `${file}, seed ${seed}`).toContain(`${REPLAY} PROB-NO-5XX-FOR-CLIENT-FAULT`);
      expect(checkOf(report, REPLAY).failure.expected, `seed ${seed}`).toContain('concurrent');
      expect(code).toBe(1);
    }
  }, 120_000);

  it(`passes the faithful reference's log of the same check (seed ${seed})`, async () => {
    const { log, envFile } = await concurrentLog([]);
    const { code, report } = await checkFiles([log], envFile);
    expect(failed(report), `seed ${seed}`).toEqual([]);
    expect(code).toBe(0);
  }, 120_000);
});
