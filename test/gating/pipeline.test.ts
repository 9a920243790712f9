// The gating commands end to end, as a pipeline calls them (child processes, one topic, the
// embedded reference with and without a named defect): baseline, replay, certify, verify. Only the
// certification of the whole profile runs every topic (certify refuses a partial run).
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../harness/result.ts';
import { cli, hasStackTrace } from '../harness/fixtures/spawn.ts';
import { specVerify, testKeyPair } from './dsse-spec.ts';

const DEFECT = 'available-differs-from-current';
const CHECK = 'wallet/available-equals-current';
const REQUIREMENT = 'WAL-AVAILABLE-EQUALS-CURRENT';
const RUN = ['--topic', 'wallet', '--seed', '11', '--runs', '3'];

const readJson = <T>(file: string) => JSON.parse(readFileSync(file, 'utf8')) as T;

describe('gating a pipeline against the embedded reference', { timeout: 180_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'gating-pipeline-'));
  const broken = join(dir, 'broken');
  let brokenRun: Awaited<ReturnType<typeof cli>>;

  beforeAll(async () => {
    brokenRun = await cli(['run', ...RUN, '--defects', DEFECT, '--report-dir', broken]);
  }, 120_000);

  it('the defect run fails on the must tier and records its defects, check ids, seeds and curl lines', () => {
    expect(brokenRun.code).toBe(1);
    expect(brokenRun.stdout).toContain(`fails the run: ${CHECK} broke must requirement ${REQUIREMENT}`);
    const report = readJson<RunResult>(join(broken, 'report.json'));
    expect(report.target.defects).toEqual([DEFECT]);
    const failed = report.topics.flatMap((t) => t.checks).find((c) => c.id === CHECK);
    expect(failed).toMatchObject({ status: 'fail', seed: 11 });
    expect(failed?.evidence[0]?.curl).toMatch(/^curl .*Authorization: Bearer \$TOKEN/);
    expect(report.gating?.tiers.must.failing).toEqual([{ check: CHECK, requirement: REQUIREMENT, known: false }]);
    expect(readFileSync(join(broken, 'report.md'), 'utf8')).toContain('## Verdict tiers');
  });

  it('a baseline with one known failure passes; with one stale entry fails; without a reason is refused', async () => {
    const file = join(dir, 'baseline.json');
    const written = await cli(['baseline', '--report', join(broken, 'report.json'), '--out', file]);
    expect(written.code).toBe(0);
    const baseline = readJson<{ knownFailures: Array<{ check: string; requirement: string; reason: string }> }>(file);
    expect(baseline.knownFailures).toEqual([{ check: CHECK, requirement: REQUIREMENT, reason: 'TODO: reason' }]);

    const refused = await cli(['run', ...RUN, '--defects', DEFECT, '--report-dir', join(dir, 'refused'), '--baseline', file]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('has no reason');
    expect(refused.stdout).not.toContain('target:'); // refused before the run started
    expect(hasStackTrace(refused.stderr)).toBe(false);

    baseline.knownFailures[0]!.reason = 'the reference runs with this defect on purpose';
    writeFileSync(file, JSON.stringify(baseline));
    const known = await cli(['run', ...RUN, '--defects', DEFECT, '--report-dir', join(dir, 'known'), '--baseline', file]);
    expect(known.code).toBe(0);
    expect(known.stdout).toContain('1 known, 0 new, 0 stale');
    expect(readJson<RunResult>(join(dir, 'known', 'report.json')).verdict).toBe('pass');

    const stale = await cli(['run', ...RUN, '--report-dir', join(dir, 'stale'), '--baseline', file]);
    expect(stale.code).toBe(1);
    expect(stale.stdout).toContain(`baseline entry ${CHECK} ${REQUIREMENT} is stale (the check passes now)`);
  });

  it('replay reproduces the failure against the same defect, and passes against the faithful reference', async () => {
    const again = await cli(['replay', join(broken, 'report.json'), CHECK]);
    expect(again.code).toBe(1);
    expect(again.stdout).toContain(`STILL FAILS: ${CHECK}`);
    expect(again.stdout).toContain('with seed 11, 3 cases per property');
    const replayed = readJson<RunResult>(join(broken, 'replay', 'report.json'));
    // Exactly that check ran; the others of its topic were filtered out.
    expect(replayed.topics.flatMap((t) => t.checks).filter((c) => c.status !== 'skip').map((c) => c.id)).toEqual([CHECK]);

    // The same report, as if the target had been fixed: no defect.
    const fixedDir = join(dir, 'fixed');
    const report = readJson<RunResult>(join(broken, 'report.json'));
    delete report.target.defects;
    mkdirSync(fixedDir, { recursive: true });
    writeFileSync(join(fixedDir, 'report.json'), JSON.stringify(report));
    const now = await cli(['replay', join(fixedDir, 'report.json'), CHECK]);
    expect(now.code).toBe(0);
    expect(now.stdout).toContain(`PASSES NOW: ${CHECK}`);

    const unknown = await cli(['replay', join(broken, 'report.json'), 'wallet/no-such-check']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`failed checks: ${CHECK}`);
  });

  it('certify refuses a partial run (--topic) loudly, even when every check of it passed', async () => {
    const partialDir = join(dir, 'partial');
    const partial = await cli(['certify', ...RUN, '--report-dir', partialDir]);
    expect(partial.code).toBe(1);
    expect(partial.stdout).toContain('PARTIAL RUN (topics wallet only)');
    expect(partial.stdout).toMatch(/NOT CERTIFIED \(1 reason\):\n {2}- partial run: topics auth-ordering, idempotency, .* were not run; certification covers every topic/);
    expect(existsSync(join(partialDir, 'certificate.json'))).toBe(false);
    expect(readJson<RunResult>(join(partialDir, 'report.json')).verdict).toBe('pass');
  });

  it('certify of every topic on the faithful embedded reference: no exclusions; verify-certificate catches a tampered report', async () => {
    const certDir = join(dir, 'certified');
    // Signed with a P-256 key (certify-signed.test.ts signs a host's with Ed25519).
    const key = testKeyPair(dir, 'p256');
    const certified = await cli(['certify', '--seed', '11', '--runs', '2', '--report-dir', certDir, '--sign-key', key.privateFile]);
    expect(certified.code).toBe(0);
    expect(specVerify(readFileSync(join(certDir, 'certificate.intoto.jsonl'), 'utf8'), key.publicKey)).toMatchObject({
      verified: true,
      statement: { predicate: { verdict: 'CERTIFIED', seed: 11, target: { embedded: true } } },
    });
    const signed = await cli(['verify-certificate', '--public-key', key.publicFile, certDir]);
    expect(signed.code).toBe(0);
    expect(signed.stdout).toContain('signature: ecdsa-p256 key');
    expect(certified.stdout).toContain('CERTIFIED with no exclusions');
    const certificate = readJson<{ certified: boolean; seed: number; contract: { sha256: string }; reports: Record<string, string>; requirements: Array<{ id: string; status: string }>; exclusions: unknown[] }>(
      join(certDir, 'certificate.json'),
    );
    expect(certificate).toMatchObject({ certified: true, seed: 11, profile: 'full', allTopics: true, exclusions: [], target: { embedded: true } });
    expect(readJson<RunResult>(join(certDir, 'report.json')).summary.skipped).toBe(0);
    expect(Object.keys(certificate.reports)).toEqual(expect.arrayContaining(['report.json', 'report.md', 'report.html', 'junit.xml']));
    expect(certificate.requirements.find((r) => r.id === REQUIREMENT)?.status).toBe('pass');
    expect(readFileSync(join(certDir, 'report.md'), 'utf8')).toContain('## Certification: CERTIFIED');
    expect(readFileSync(join(certDir, 'report.md'), 'utf8')).toContain('Certified with no exclusions');

    const verified = await cli(['verify-certificate', join(certDir, 'certificate.json')]);
    expect(verified.code).toBe(0);

    const copy = join(dir, 'tampered');
    cpSync(certDir, copy, { recursive: true });
    const reportJson = join(copy, 'report.json');
    writeFileSync(reportJson, readFileSync(reportJson, 'utf8').replace('"verdict": "pass"', '"verdict": "pass" '));
    const tampered = await cli(['verify-certificate', join(copy, 'certificate.json')]);
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toMatch(/CHANGED {2}report\.json/);
    expect(tampered.stderr).toContain('report.json changed or missing');
    const signedTampered = await cli(['verify-certificate', '--public-key', key.publicFile, copy]);
    expect(signedTampered.code).toBe(1);
    expect(signedTampered.stderr).toMatch(/does not verify: report\.json changed since certification/);
  });

  it('certify refuses with exit 1 when a must check fails, and leaves no certificate behind', async () => {
    const certDir = join(dir, 'refused-cert');
    mkdirSync(certDir, { recursive: true });
    // A certificate of an earlier run must not survive beside reports it does not describe.
    copyFileSync(join(dir, 'certified', 'certificate.json'), join(certDir, 'certificate.json'));
    copyFileSync(join(dir, 'certified', 'certificate.intoto.jsonl'), join(certDir, 'certificate.intoto.jsonl'));
    const refused = await cli(['certify', ...RUN, '--defects', DEFECT, '--report-dir', certDir]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(`NOT CERTIFIED`);
    expect(refused.stdout).toContain(`${CHECK} failed (${REQUIREMENT})`);
    expect(existsSync(join(certDir, 'certificate.json'))).toBe(false);
    expect(existsSync(join(certDir, 'certificate.intoto.jsonl'))).toBe(false);
    expect(readFileSync(join(certDir, 'report.md'), 'utf8')).toContain('## Certification: REFUSED');
  });
});
