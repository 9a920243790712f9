// The run as CI runners make it: through the proxy HTTP_PROXY names, and inside GitHub Actions
// (job summary and one annotation per failed check). Every server is the test's own, on loopback.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ROOT } from './fixtures/spawn.ts';
import { VARIABLES } from '../../core/variables.ts';
import { annotationOf } from '../../harness/ci.ts';
import { envLinesFor } from '../../harness/config.ts';
import type { CheckResult, RunResult } from '../../harness/result.ts';
import { startReference } from '../../reference/index.ts';
import { startForwardProxy } from './fixtures/forward-proxy.ts';
import { cli } from './fixtures/spawn.ts';

/** A fresh folder; the run's temp root (test/temp-root.ts) removes it with everything else. */
const tempDir = (label: string) => mkdtempSync(join(tmpdir(), `conformance-${label}-`));

const readReport = (dir: string) => JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as RunResult;

describe('HTTP_PROXY', { timeout: 180_000 }, () => {
  it('a proxy URL the HTTP client refuses is a configuration error (exit 2) naming the variables, the secret nowhere', async () => {
    const dir = tempDir('bad-proxy');
    const secret = 'canary-secret-bad-proxy-7d41';
    writeFileSync(
      join(dir, 'host.env'),
      [
        'CONFORMANCE_BASE_URL=http://127.0.0.1:9/',
        'CONFORMANCE_TOKEN_URL=http://127.0.0.1:9/oauth2/token',
        'CONFORMANCE_CLIENT_ID=client',
        `CONFORMANCE_CLIENT_SECRET=${secret}`,
        'CONFORMANCE_BUSINESS_ID=0190a5a5-0000-7000-8000-000000000001',
        '',
      ].join('\n'),
    );
    const result = await cli(['run', '--env-file', join(dir, 'host.env'), '--topic', 'wallet', '--report-dir', join(dir, 'r')], { HTTP_PROXY: 'http://[not-a-url', HTTPS_PROXY: 'http://[not-a-url' });
    expect(result.code, result.stdout + result.stderr).toBe(2);
    expect(result.stderr).toMatch(/the HTTP client could not be set up \(HTTPS_PROXY \/ HTTP_PROXY\?\).*\[CONF_INVALID_VALUE\]/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout + result.stderr).not.toContain(secret);
  });

  it('a run against a host reaches it through the proxy, every request seen by the proxy', async () => {
    const reference = await startReference();
    const proxy = await startForwardProxy();
    try {
      const dir = tempDir('proxy');
      writeFileSync(join(dir, 'host.env'), `${envLinesFor(reference).join('\n')}\n`);
      const result = await cli(['run', '--env-file', join(dir, 'host.env'), '--topic', 'wallet,messages', '--profile', 'safe', '--runs', '2', '--report-dir', join(dir, 'r')], { HTTP_PROXY: proxy.url });
      expect(result.code, result.stdout + result.stderr).toBe(0);
      const exchanges = readFileSync(join(dir, 'r', 'exchanges.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { request?: { method: string; url: string } })
        .filter((e) => e.request);
      expect(exchanges.length).toBeGreaterThan(10);
      // The pre-flight's requests are not in the log; everything in the log passed the proxy.
      expect(proxy.seen.length).toBeGreaterThanOrEqual(exchanges.length);
      for (const e of exchanges) expect(proxy.seen, `${e.request!.method} ${e.request!.url}`).toContain(`${e.request!.method} ${e.request!.url}`);
      expect(proxy.seen.some((s) => s.startsWith(`POST ${reference.tokenUrl}`))).toBe(true);
      expect(proxy.tunnels).toEqual([]);
    } finally {
      await proxy.close();
      await reference.close();
    }
  });

  it('the embedded reference is never reached through a proxy (it is on this machine)', async () => {
    const proxy = await startForwardProxy();
    try {
      const dir = tempDir('embedded-proxy');
      const result = await cli(['run', '--topic', 'wallet', '--runs', '2', '--report-dir', join(dir, 'r')], { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url }, dir);
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(proxy.seen).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it('NO_PROXY keeps a host away from the proxy', async () => {
    const reference = await startReference();
    const proxy = await startForwardProxy();
    try {
      const dir = tempDir('noproxy');
      writeFileSync(join(dir, 'host.env'), `${envLinesFor(reference).join('\n')}\n`);
      const result = await cli(['run', '--env-file', join(dir, 'host.env'), '--topic', 'wallet', '--profile', 'safe', '--runs', '2', '--report-dir', join(dir, 'r')], { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' });
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(proxy.seen).toEqual([]);
    } finally {
      await proxy.close();
      await reference.close();
    }
  });
});

describe('GitHub Actions', { timeout: 180_000 }, () => {
  it('appends report.md to GITHUB_STEP_SUMMARY and prints one annotation per failed check', async () => {
    const dir = tempDir('gha');
    const summaryFile = join(dir, 'step-summary.md');
    writeFileSync(summaryFile, 'earlier step\n');
    const result = await cli(
      ['run', '--topic', 'wallet', '--runs', '2', '--defects', 'available-differs-from-current,wallet-currency-lower-case', '--report-dir', join(dir, 'r')],
      { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summaryFile },
      dir,
    );
    expect(result.code).toBe(1);
    const summary = readFileSync(summaryFile, 'utf8');
    expect(summary.startsWith('earlier step\n')).toBe(true);
    expect(summary).toContain(readFileSync(join(dir, 'r', 'report.md'), 'utf8'));
    const report = readReport(join(dir, 'r'));
    const failed = report.topics.flatMap((t) => t.checks).filter((c) => c.status === 'fail');
    expect(failed.length).toBeGreaterThan(1);
    const annotations = result.stdout.split('\n').filter((l) => l.startsWith('::error '));
    expect(annotations).toHaveLength(failed.length);
    for (const check of failed) {
      const line = annotations.find((a) => a.includes(`title=${check.id.replace(/:/g, '%3A')} `));
      expect(line, check.id).toBeDefined();
      expect(line).toContain(check.failure!.requirement);
      expect(line).toContain(`section ${check.failure!.section}`);
    }
  });

  it('outside GitHub Actions nothing is appended and no annotation printed', async () => {
    const dir = tempDir('nogha');
    const summaryFile = join(dir, 'step-summary.md');
    const result = await cli(['run', '--topic', 'wallet', '--runs', '2', '--defects', 'wallet-currency-lower-case', '--report-dir', join(dir, 'r')], { GITHUB_STEP_SUMMARY: summaryFile }, dir);
    expect(result.code).toBe(1);
    expect(existsSync(summaryFile)).toBe(false);
    expect(result.stdout).not.toContain('::error');
  });

  it('annotations escape what would end the workflow command, and warn for should checks', () => {
    const check: CheckResult = {
      id: 'a/b',
      title: 't',
      requirements: ['X'],
      status: 'warn',
      reason: 'r',
      durationMs: 1,
      failure: { requirement: 'REQ-1', section: '4.1', expected: 'one\nline: 100%', actual: 'a,b', message: 'm' },
      notes: [],
      advisories: [],
      evidence: [],
    };
    const line = annotationOf(check)!;
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toMatch(/^::warning title=a\/b breaks REQ-1 \(section 4\.1\)::expected one%0Aline: 100%25; got a,b$/);
    expect(annotationOf({ ...check, status: 'pass' })).toBeUndefined();
  });
});

describe('examples/github-actions.yml', () => {
  const workflow = parseYaml(readFileSync(join(ROOT, 'examples', 'github-actions.yml'), 'utf8')) as {
    on: Record<string, unknown>;
    jobs: Record<'conformance' | 'certify', { if?: string; needs?: string; env: Record<string, string>; steps: Array<{ name?: string; id?: string; if?: string; run?: string; uses?: string; env?: Record<string, string>; with?: Record<string, unknown> }> }>;
  };
  const job = workflow.jobs.conformance;

  it('safe on pull requests, full on the default branch', () => {
    expect(Object.keys(workflow.on)).toEqual(expect.arrayContaining(['pull_request', 'push']));
    expect(job.env.CONFORMANCE_PROFILE).toBe("${{ github.event_name == 'pull_request' && 'safe' || 'full' }}");
  });

  it('skips with a notice where the secrets are absent; every later step depends on it', () => {
    const [first, ...rest] = job.steps;
    expect(first!.run).toContain('::notice');
    expect(first!.run).toContain('[ -z "$CONFORMANCE_BASE_URL" ]');
    for (const step of rest) expect(step.if, step.name ?? step.uses ?? step.run).toContain("steps.secrets.outputs.present == 'true'");
  });

  it('caches npm, uploads the reports with junit.xml, and tells exit 1 from exit 2', () => {
    expect(job.steps.find((s) => s.uses?.startsWith('actions/setup-node'))?.with?.cache).toBe('npm');
    expect(job.steps.find((s) => s.uses?.startsWith('actions/upload-artifact'))?.with?.path).toBe('reports/');
    const verdict = job.steps.find((s) => s.name === 'Verdict')!;
    expect(verdict.run).toMatch(/1\) echo "::error title=not conformant::[^\n]*\n\s*exit 1/);
    expect(verdict.run).toMatch(/2\) echo "::error title=conformance run could not be made::/);
    // The run writes the job summary itself: no second copy of report.md.
    expect(JSON.stringify(job.steps)).not.toContain('cat reports/report.md');
  });

  it('the certify job signs with the key of a repository secret, kept in a private file and removed, verifies, and uploads the attestation', () => {
    const certify = workflow.jobs.certify;
    expect(certify.needs).toBe('conformance');
    expect(certify.if).toContain("github.event_name == 'workflow_dispatch'");
    // Only variables the checker knows: an unknown CONFORMANCE_* name would refuse the run.
    const known = new Set(VARIABLES.map((v) => v.name));
    for (const name of Object.keys(certify.env)) expect(known.has(name), name).toBe(true);
    const steps = certify.steps;
    const keyStep = steps.findIndex((s) => s.env?.CERTIFY_SIGNING_KEY === '${{ secrets.CERTIFY_SIGNING_KEY }}');
    expect(steps[keyStep]!.run).toMatch(/umask 077\n.*> "\$RUNNER_TEMP\/certify\.pem"/);
    const sign = steps.findIndex((s) => s.run?.includes('conformance certify --sign-key "$RUNNER_TEMP/certify.pem"'));
    const remove = steps.findIndex((s) => s.run === 'rm -f "$RUNNER_TEMP/certify.pem"');
    const verify = steps.findIndex((s) => /conformance verify-certificate --public-key \S+\.pub certificate$/.test(s.run ?? ''));
    const upload = steps.findIndex((s) => s.uses?.startsWith('actions/upload-artifact'));
    expect([keyStep, sign, remove, verify, upload].every((i, n, all) => i >= 0 && (n === 0 || i > all[n - 1]!))).toBe(true);
    expect(steps[remove]!.if).toBe('always()');
    expect(steps[upload]!.with?.path).toBe('certificate/');
    expect(certify.env.CONFORMANCE_REPORT_DIR).toBe('certificate');
    // The key is never in the environment of a step that runs the checker.
    expect(JSON.stringify(certify.env)).not.toContain('CERTIFY_SIGNING_KEY');
  });
});

/** openssl makes the test's own CA; without it the test says so and skips. */
const openssl = spawnSync('openssl', ['version']).status === 0;

describe('NODE_EXTRA_CA_CERTS', { timeout: 120_000 }, () => {
  it.skipIf(!openssl)('an https host with a private CA is reached only when NODE_EXTRA_CA_CERTS names the CA', async () => {
    const dir = tempDir('tls');
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1']);
    expect(made.status, String(made.stderr)).toBe(0);
    // Answers like the API (problem documents), and refuses every client at the token endpoint.
    const server = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
      req.resume();
      const token = req.url?.startsWith('/oauth2/token');
      res.writeHead(token ? 401 : 404, { 'content-type': token ? 'application/json' : 'application/problem+json' });
      res.end(token ? '{"error":"invalid_client"}' : '{"type":"about:blank","status":404}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const env = { CONFORMANCE_BASE_URL: origin, CONFORMANCE_TOKEN_URL: `${origin}/oauth2/token`, CONFORMANCE_CLIENT_ID: 'c', CONFORMANCE_CLIENT_SECRET: 's-secret', CONFORMANCE_BUSINESS_ID: '01890a5d-ac96-774b-bcce-b302099a8057' };
      const untrusted = await cli(['run', '--report-dir', join(dir, 'a')], env, dir);
      expect(untrusted.code).toBe(2);
      expect(untrusted.stderr).toContain('[TARGET_UNREACHABLE]');
      expect(untrusted.stderr).toMatch(/certificate/i);
      const trusted = await cli(['run', '--report-dir', join(dir, 'b')], { ...env, NODE_EXTRA_CA_CERTS: cert }, dir);
      // TLS passed: the token endpoint itself answered (and refused the made-up client).
      expect(trusted.code).toBe(2);
      expect(trusted.stderr).toContain('[CREDENTIALS_REFUSED]');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
