// check's readings come from the catalogue (spec/readings.ts) as a run's do: the report's Readings
// lines name the point and the answer, and an answer a client written from the document breaks on
// warns under the point's should. The two grades the traffic judge changed are proven on the
// traffic of the reference defects that break them (equivalent-json-conflict,
// processed-from-lagging-replica), and stay quiet on the faithful reference.
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../../reference/index.ts';
import { RecordingClient, envLines } from './client.ts';
import { conformance, tempDir, writeJson } from './support.ts';

type Session = (client: RecordingClient, reference: RunningReference, bearer: Record<string, string>) => Promise<void>;

async function judged(defects: string[], session: Session): Promise<any> {
  const reference = await startReference({ defects });
  try {
    const client = new RecordingClient(reference.baseUrl);
    const { clientId, clientSecret } = reference.apps.primary;
    const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64');
    const token = await client.send('POST', reference.tokenUrl, { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' }, 'grant_type=client_credentials');
    await session(client, reference, { authorization: `Bearer ${token.json.access_token as string}` });
    const dir = tempDir();
    const file = writeJson(dir, 'session.har', client.har);
    writeFileSync(join(dir, 'fixtures.env'), envLines(reference));
    const outcome = await conformance(['check', file, '--env-file', join(dir, 'fixtures.env'), '--report-dir', join(dir, 'reports')]);
    return { code: outcome.code, report: JSON.parse(readFileSync(join(dir, 'reports', 'report.json'), 'utf8')), markdown: readFileSync(join(dir, 'reports', 'report.md'), 'utf8') };
  } finally {
    await reference.close();
  }
}

const checkOf = (report: any, id: string) => report.topics.flatMap((t: any) => t.checks).find((c: any) => c.id === id);
const readingsOf = (report: any) => report.readings.map((r: any) => `${r.point} ${r.choice} ${r.grade}`);

/** A submission, then the same JSON value written otherwise (indented) under the same key. */
const equivalentRepeat: Session = async (client, reference, bearer) => {
  const f = reference.fixtures;
  const body = { from: f.senderId, classification: 'transactional', message: 'Readings', recipients: [{ to: f.recipients![0] }] };
  const headers = { ...bearer, 'content-type': 'application/json', 'idempotency-key': `rd-${randomUUID()}` };
  const url = client.api(`/businesses/${f.businessId}/sms/bulk-messages`);
  await client.send('POST', url, headers, JSON.stringify(body));
  await client.send('POST', url, headers, JSON.stringify(body, null, 2));
  await client.send('GET', client.api(`/businesses/${f.businessId}/wallet/balance`), bearer);
};

/** A submission read again and again while the reference's clock moves on (the clock is test setup, not traffic). */
const readsWhileProcessing: Session = async (client, reference, bearer) => {
  const f = reference.fixtures;
  const body = { from: f.senderId, classification: 'transactional', message: 'Counts', recipients: (f.recipients ?? []).slice(0, 3).map((to) => ({ to })) };
  const accepted = await client.send('POST', client.api(`/businesses/${f.businessId}/sms/bulk-messages`), { ...bearer, 'content-type': 'application/json', 'idempotency-key': `rd-${randomUUID()}` }, JSON.stringify(body));
  for (let i = 0; i < 8; i++) {
    await client.send('GET', client.api(`/businesses/${f.businessId}/sms/bulk-messages/${accepted.json.id as string}`), bearer);
    await fetch(`${reference.controlUrl}/clock/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ms: 400 }) });
  }
};

describe("check's readings, from the catalogue", () => {
  it('records the replay of equal JSON as a reading, and the wallet spelling, on the faithful reference', async () => {
    const { code, report, markdown } = await judged([], equivalentRepeat);
    expect(code).toBe(0);
    expect(readingsOf(report)).toEqual(expect.arrayContaining(['equivalent-json replay reading', 'available-spelling identical reading']));
    expect(checkOf(report, 'traffic/idempotency/replay').status).toBe('pass');
    expect(markdown).toContain('## Readings');
  });

  it('warns IDEM-EQUIVALENT-REPLAYED when equal JSON written otherwise is refused (equivalent-json-conflict)', async () => {
    const { code, report } = await judged(['equivalent-json-conflict'], equivalentRepeat);
    const check = checkOf(report, 'traffic/idempotency/replay');
    expect(check.status).toBe('warn');
    expect(check.failure.requirement).toBe('IDEM-EQUIVALENT-REPLAYED');
    expect(readingsOf(report)).toContain('equivalent-json conflict warning');
    // A should: the verdict stays a pass.
    expect(code).toBe(0);
  });

  it('holds the submission counts to one way between reads (processed-from-lagging-replica warns, the faithful reference does not)', async () => {
    expect(checkOf((await judged([], readsWhileProcessing)).report, 'traffic/bulk-invariants/reads').status).toBe('pass');
    const check = checkOf((await judged(['processed-from-lagging-replica'], readsWhileProcessing)).report, 'traffic/bulk-invariants/reads');
    expect(check.status).toBe('warn');
    expect(check.failure.requirement).toBe('BULK-COUNTS-ONE-WAY');
  });
});
