// Certification of a real (non-embedded) host, end to end: the reference started on loopback and
// given to the CLI as an ordinary host through an env file, as `conformance serve --env-out` does.
// Such a host has no control origin and is protected by the safety rules, so some must checks can
// never be observed: they become exclusions. A missing fixture still refuses, and a certificate
// whose contents were edited no longer verifies.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envLinesFor } from '../../harness/config.ts';
import type { Certificate } from '../../harness/gating/certificate.ts';
import { verifyCertificate } from '../../harness/gating/certificate.ts';
import type { RunResult } from '../../harness/result.ts';
import { startReference } from '../../reference/index.ts';
import type { RunningReference } from '../../reference/index.ts';
import { cli, hasStackTrace } from '../harness/fixtures/spawn.ts';
import { validateReport } from '../reports/schema.ts';

const readJson = <T>(file: string) => JSON.parse(readFileSync(file, 'utf8')) as T;
const RUN = ['--seed', '7', '--runs', '2'];

/** Checks that can never be observed on a real host, even a declared sandbox: control origin, unforceable faults. */
const STRUCTURAL = ['idempotency/seven-day-window', 'cursors/cursor-lifetime', 'wallet/source-unavailable'];

describe('certifying a non-embedded host', { timeout: 240_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'gating-certify-host-'));
  const certDir = join(dir, 'certified');
  let reference: RunningReference;
  let envLines: string[];
  let certified: Awaited<ReturnType<typeof cli>>;

  beforeAll(async () => {
    reference = await startReference();
    envLines = envLinesFor(reference);
    // A declared sandbox: the cross-business DELETE is sent, not excluded (issue 28).
    writeFileSync(join(dir, 'host.env'), `${[...envLines, 'CONFORMANCE_SANDBOX=true'].join('\n')}\n`);
    certified = await cli(['certify', '--env-file', join(dir, 'host.env'), '--report-dir', certDir, ...RUN]);
  }, 180_000);
  afterAll(async () => {
    await reference?.close();
  });

  it('certifies with the structural skips listed as exclusions, none of them a precondition skip', () => {
    expect(certified.stderr).toBe('');
    expect(certified.code).toBe(0);
    const certificate = readJson<Certificate>(join(certDir, 'certificate.json'));
    expect(certificate).toMatchObject({ certified: true, certificateVersion: 2, profile: 'full', seed: 7, allTopics: true });
    expect(certificate.target).toMatchObject({ embedded: false, baseUrl: reference.baseUrl });
    const excluded = certificate.exclusions.map((e) => e.check);
    expect(excluded).toEqual(expect.arrayContaining(STRUCTURAL));
    expect(certified.stdout).toContain(`CERTIFIED with ${excluded.length} exclusions (not observable on this target)`);
    for (const e of certificate.exclusions) expect(e.requirements.length).toBeGreaterThan(0);

    const report = readJson<RunResult>(join(certDir, 'report.json'));
    expect(validateReport(report)).toEqual([]);
    const checks = new Map(report.topics.flatMap((t) => t.checks).map((c) => [c.id, c]));
    // Every exclusion is a skip the check itself declared not observable, with its reason.
    for (const e of certificate.exclusions) {
      expect(checks.get(e.check)).toMatchObject({ status: 'skip', skipKind: 'not-observable', reason: e.reason });
    }
    // An expired token is a fixture any host can supply (serve prints one): that check ran.
    expect(checks.get('auth-ordering/expired-token-401')?.status).toBe('pass');
    expect(excluded).not.toContain('auth-ordering/expired-token-401');
    // The cross-business DELETE ran on the declared sandbox, and the certificate carries the matrix.
    expect(checks.get('webhooks/foreign-endpoint-refused')?.status).toBe('pass');
    expect(excluded.filter((id) => id.startsWith('webhooks/'))).toEqual([]);
    expect(certificate.authorizationMatrix?.callers).toEqual(['no-token', 'invalid-token', 'primary', 'limited', 'other-tenant']);
    expect(certificate.authorizationMatrix?.verdicts.fail ?? 0).toBe(0);
    expect(report.authorizationMatrix?.cells.filter((c) => c.operation === 'deactivateWebhookEndpoint' && c.caller === 'primary' && c.object === 'foreign')[0]).toMatchObject({ verdict: 'pass' });
    // And every must check that did not pass is one of them: nothing refused, nothing hidden.
    const mustSkips = report.gating!.tiers.must.skipped;
    expect(mustSkips).toBe(excluded.length);
    expect(report.gating?.certification).toMatchObject({ certified: true, refusals: [] });

    const markdown = readFileSync(join(certDir, 'report.md'), 'utf8');
    expect(markdown).toContain('## Certification: CERTIFIED');
    expect(markdown).toContain(`Certified with ${excluded.length} exclusions (not observable on this target)`);
    expect(markdown).toContain('- `idempotency/seven-day-window` (`IDEM-WINDOW`');
    expect(markdown).toMatch(/`cursors\/cursor-lifetime` .*\(not observable on this target\)/);
    expect(readFileSync(join(certDir, 'report.html'), 'utf8')).toContain('data-skip-kind="not-observable"');
  });

  it('verify-certificate accepts it, and fails naming the field when the certificate says something report.json does not', async () => {
    const verified = await cli(['verify-certificate', join(certDir, 'certificate.json')]);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toContain('the certificate says what report.json says');

    const tamperings: Array<[string, (c: Certificate) => void]> = [
      ['target.baseUrl', (c) => void (c.target.baseUrl = 'https://sandbox.example')],
      ['target.embedded', (c) => void (c.target.embedded = true)],
      ['topics', (c) => void c.topics.pop()],
      ['requirements[IDEM-WINDOW].status', (c) => void (c.requirements.find((r) => r.id === 'IDEM-WINDOW')!.status = 'pass')],
      ['exclusions', (c) => void c.exclusions.splice(0, 1)],
      ['seed', (c) => void (c.seed += 1)],
      ['contract.sha256', (c) => void (c.contract.sha256 = '0'.repeat(64))],
      ['tool.version', (c) => void (c.tool.version = '9.9.9')],
      ['profile', (c) => void (c.profile = 'safe')],
    ];
    // The requirement the tampering turns to pass must really be unverified on this host.
    const original = readJson<Certificate>(join(certDir, 'certificate.json'));
    expect(original.requirements.find((r) => r.id === 'IDEM-WINDOW')?.status).toBe('skipped');

    for (const [index, [field, tamper]] of tamperings.entries()) {
      const copy = join(dir, `tampered-${index}`);
      cpSync(certDir, copy, { recursive: true });
      const file = join(copy, 'certificate.json');
      const certificate = readJson<Certificate>(file);
      tamper(certificate);
      writeFileSync(file, JSON.stringify(certificate, null, 2));
      const outcome = verifyCertificate(file);
      expect(outcome.ok, field).toBe(false);
      expect(outcome.mismatched, field).toEqual([]);
      expect(outcome.contentMismatch, field).toMatch(new RegExp(`^${field.replace(/[.[\]]/g, '\\$&')}\\b`));
    }

    // Through the CLI: exit 1 and one line that names the field.
    const edited = await cli(['verify-certificate', join(dir, 'tampered-1', 'certificate.json')]);
    expect(edited.code).toBe(1);
    expect(edited.stderr.trim().split('\n')).toHaveLength(1);
    expect(edited.stderr).toContain('does not say what report.json says: target.embedded: the certificate says true, report.json says false');
    expect(hasStackTrace(edited.stderr)).toBe(false);
  });

  it('without a declared sandbox the cross-business DELETE is a precondition: refused before a request, naming CONFORMANCE_SANDBOX=true', async () => {
    const env = join(dir, 'no-sandbox.env');
    writeFileSync(env, `${envLines.join('\n')}\n`);
    const refused = await cli(['certify', '--env-file', env, '--topic', 'webhooks', '--report-dir', join(dir, 'no-sandbox'), ...RUN]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      "1 must check will be skipped, refusing certification: a DELETE of another business's endpoint goes to a declared sandbox only: declare CONFORMANCE_SANDBOX=true to send it (webhooks/foreign-endpoint-refused)",
    );
  });

  it('a missing fixture is a precondition skip: certification is refused, naming the check', async () => {
    const env = join(dir, 'no-foreign-message.env');
    writeFileSync(env, `${envLines.filter((l) => !l.startsWith('CONFORMANCE_FOREIGN_MESSAGE_ID=')).join('\n')}\n`);
    const refusedDir = join(dir, 'refused');
    // One topic is enough to show the refusal for the fixture; a partial run is refused as well.
    const refused = await cli(['certify', '--env-file', env, '--topic', 'concealment', '--report-dir', refusedDir, ...RUN]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('PARTIAL RUN (topics concealment only)');
    // Known from the plan, before a request is sent: printed ahead of the run and its verdict.
    const upfront = refused.stdout.indexOf('must checks will be skipped, refusing certification: needs CONFORMANCE_FOREIGN_MESSAGE_ID (concealment/foreign-message-404');
    expect(upfront).toBeGreaterThan(-1);
    expect(upfront).toBeLessThan(refused.stdout.indexOf('NOT CERTIFIED'));
    expect(refused.stdout).toContain('NOT CERTIFIED');
    expect(refused.stdout).toMatch(/- partial run: topics .* were not run/);
    expect(refused.stdout).toMatch(
      /- concealment\/foreign-message-404 was skipped for a precondition \(supply it and run again\): needs CONFORMANCE_FOREIGN_MESSAGE_ID/,
    );
    const report = readJson<RunResult>(join(refusedDir, 'report.json'));
    const skipped = report.topics.flatMap((t) => t.checks).filter((c) => c.status === 'skip');
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped.every((c) => c.skipKind === 'precondition')).toBe(true);
    expect(report.gating?.certification?.exclusions).toEqual([]);
    expect(readFileSync(join(refusedDir, 'report.md'), 'utf8')).toContain('## Certification: REFUSED');
  });
});
