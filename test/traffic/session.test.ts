// The test client's traffic against the embedded reference: faithful traffic never fails, and a
// handful of the reference's named defects that such traffic shows are caught, each naming the
// defect's own requirement.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFECTS } from '../../reference/defects.ts';
import { startReference } from '../../reference/index.ts';
import { burstSession, clientSession, envLines } from './client.ts';
import { conformance, tempDir, writeJson } from './support.ts';
import { readFileSync } from 'node:fs';
import { validateReport } from '../reports/schema.ts';

async function checkSession(defects: string[]): Promise<{ code: number; out: string[]; err: string[]; report: any }> {
  const reference = await startReference({ defects });
  try {
    const har = await clientSession(reference);
    const dir = tempDir();
    const file = writeJson(dir, 'session.har', har);
    writeFileSync(join(dir, 'fixtures.env'), envLines(reference));
    const outcome = await conformance(['check', file, '--env-file', join(dir, 'fixtures.env'), '--report-dir', join(dir, 'reports')]);
    const report = outcome.code === 2 ? undefined : JSON.parse(readFileSync(join(dir, 'reports', 'report.json'), 'utf8'));
    return { ...outcome, report };
  } finally {
    await reference.close();
  }
}

const failedRequirements = (report: any): string[] =>
  report.topics.flatMap((t: any) => t.checks.filter((c: any) => c.status === 'fail' || c.status === 'warn').map((c: any) => c.failure.requirement));

describe('check, on the test client\'s own traffic', () => {
  it('passes faithful traffic, judging every topic the session touches', async () => {
    const { code, out, err, report } = await checkSession([]);
    expect(err).toEqual([]);
    expect(failedRequirements(report)).toEqual([]);
    expect(code).toBe(0);
    expect(report.verdict).toBe('pass');
    const passed = report.topics.flatMap((t: any) => t.checks.filter((c: any) => c.status === 'pass').map((c: any) => c.id));
    expect(passed).toEqual(expect.arrayContaining(['traffic/idempotency/replay', 'traffic/idempotency/conflict', 'traffic/cursors/cursor-bound', 'traffic/wallet/balance-rules', 'traffic/concealment/foreign-resources', 'traffic/recipient-limits/maximum', 'traffic/bulk-invariants/settled']));
    expect(out.join('\n')).toContain('verdict: pass');
    // The same report.json shape as a run's (spec/report.schema.json).
    expect(validateReport(report)).toEqual([]);
  });

  const caught: Array<[string, string]> = [
    ['available-differs-from-current', 'WAL-AVAILABLE-EQUALS-CURRENT'],
    ['idempotency-conflict-ignored', 'IDEM-CONFLICT'],
    ['missing-token-403', 'AUTH-401-MISSING'],
    ['request-id-ignored', 'RID-ECHO'],
    ['problem-media-type-json', 'PROB-MEDIA-TYPE'],
    ['acceptance-status-processing', 'BULK-ACCEPT-QUEUED'],
    ['cursor-not-bound-to-bulk', 'CUR-BOUND'],
    ['location-missing', 'BULK-LOCATION'],
    ['foreign-message-disclosed', 'CONC-CROSS-BUSINESS-MESSAGE'],
    ['recipient-limit-1001-accepted', 'RLIM-MAX-1000'],
    ['message-ownership-before-grant', 'AUTH-ORDER'],
    ['replay-without-location', 'IDEM-REPLAY'],
    ['expired-token-accepted', 'AUTH-401-INVALID'],
    ['wrong-audience-accepted', 'AUTH-AUDIENCE'],
    ['wallet-permission-not-checked', 'WAL-PERMISSION'],
  ];
  it.each(caught)('catches the defect %s naming %s', async (defect, requirement) => {
    expect(DEFECTS.find((d) => d.id === defect)?.requirement).toBe(requirement);
    const { code, report } = await checkSession([defect]);
    expect(code).toBe(1);
    expect(validateReport(report)).toEqual([]);
    expect(failedRequirements(report)).toContain(requirement);
  });
});

describe('check, on a burst against a rate-limited host', () => {
  async function burst(defects: string[], rateLimit?: number) {
    const reference = await startReference({ defects, ...(rateLimit ? { rateLimit } : {}) });
    try {
      // The per-application limit of the control origin (the defect lives there), as well as the host's pace.
      await fetch(`${reference.controlUrl}/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ rateLimitPerMinute: 4 }) });
      const dir = tempDir();
      const file = writeJson(dir, 'burst.har', await burstSession(reference));
      const outcome = await conformance(['check', file, '--report-dir', join(dir, 'reports')]);
      return { ...outcome, report: JSON.parse(readFileSync(join(dir, 'reports', 'report.json'), 'utf8')) };
    } finally {
      await reference.close();
    }
  }

  it('never judges the 429 answers as violations, and judges their Retry-After', async () => {
    const { code, report } = await burst([], 3);
    expect(failedRequirements(report)).toEqual([]);
    expect(code).toBe(0);
    const retry = report.topics.flatMap((t: any) => t.checks).find((c: any) => c.id === 'traffic/problem-details/retry-after');
    expect(retry.status).toBe('pass');
    expect(JSON.stringify(report.notes)).toMatch(/answers were 429 or 503/);
  });

  it('catches a 429 without Retry-After (rate-limit-without-retry-after)', async () => {
    const { code, report } = await burst(['rate-limit-without-retry-after']);
    expect(code).toBe(1);
    expect(failedRequirements(report)).toEqual(['PROB-RETRY-AFTER']);
  });
});
