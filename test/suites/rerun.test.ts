// Run it again: full runs against one persistent host with one env file, as a developer or a
// nightly job runs a sandbox. Each run spends the next webhook endpoint of the list and says
// which; once every one is spent the checks that need one skip as a precondition naming the run
// that spent each (certification refuses); a 404 for an endpoint the ledger says this tool
// deactivated is that precondition, one for an endpoint it does not know is judged as always.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envLinesFor, loadConfig } from '../../harness/config.ts';
import { certificationOf } from '../../harness/gating/tiers.ts';
import { ledgerPath, readSpent, recordSpent } from '../../harness/ledger.ts';
import type { CheckResult, RunResult } from '../../harness/result.ts';
import { runConformance } from '../../harness/runner.ts';
import { startReference, type RunningReference } from '../../reference/index.ts';
import { cli } from '../harness/fixtures/spawn.ts';

const readJson = <T>(file: string) => JSON.parse(readFileSync(file, 'utf8')) as T;
const checkOf = (report: RunResult, id: string): CheckResult => report.topics.flatMap((t) => t.checks).find((c) => c.id === id)!;
const tempDir = () => mkdtempSync(join(tmpdir(), 'conformance-rerun-'));
const ENDPOINTS_LINE = /^CONFORMANCE_WEBHOOK_ENDPOINT_ID=(.*)$/m;

/** The env file with CONFORMANCE_WEBHOOK_ENDPOINT_ID replaced. */
function withEndpoints(lines: string[], ids: string[]): string {
  return `${lines.map((l) => (l.startsWith('CONFORMANCE_WEBHOOK_ENDPOINT_ID=') ? `CONFORMANCE_WEBHOOK_ENDPOINT_ID=${ids.join(',')}` : l)).join('\n')}\n`;
}

describe('full runs again and again against one served reference', { timeout: 240_000 }, () => {
  const cwd = tempDir();
  let reference: RunningReference;
  let lines: string[];
  let ids: string[];
  const runs: Array<{ code: number | null; stdout: string; report: RunResult }> = [];

  beforeAll(async () => {
    reference = await startReference();
    lines = envLinesFor(reference);
    ids = ENDPOINTS_LINE.exec(lines.join('\n'))![1]!.split(',');
    writeFileSync(join(cwd, 'host.env'), `${lines.join('\n')}\n`, { mode: 0o600 });
    writeFileSync(join(cwd, 'one.env'), withEndpoints(lines, [ids[0]!]), { mode: 0o600 });
    for (const [i, env] of ['host.env', 'host.env', 'host.env', 'one.env'].entries()) {
      const run = await cli(['run', '--env-file', env, '--report-dir', `r${i}`], {}, cwd);
      runs.push({ code: run.code, stdout: run.stdout, report: readJson<RunResult>(join(cwd, `r${i}`, 'report.json')) });
    }
  }, 200_000);
  afterAll(async () => {
    await reference?.close();
  });

  it('serve names four endpoints of the business', () => {
    expect(ids).toHaveLength(4);
    expect(new Set(ids).size).toBe(4);
  });

  it('three consecutive full runs with one env file all pass, each spending the next endpoint and saying so', () => {
    for (const [i, run] of runs.slice(0, 3).entries()) {
      expect(run.code, run.stdout).toBe(0);
      expect(run.stdout).toContain(`webhook endpoint: spends ${ids[i]}, the ${['1st', '2nd', '3rd'][i]} of 4 in CONFORMANCE_WEBHOOK_ENDPOINT_ID`);
      expect(checkOf(run.report, 'webhooks/deactivate-204').status).toBe('pass');
      expect(checkOf(run.report, 'webhooks/repeat-deactivation').status).toBe('pass');
    }
    const spent = readSpent({ stateDir: join(cwd, '.conformance'), baseUrl: reference.baseUrl, businessId: reference.fixtures.businessId! }, 'webhookEndpointId');
    expect(spent.map((e) => [e.id, e.seed, e.check])).toEqual(runs.slice(0, 3).map((r, i) => [ids[i], r.report.seed, 'webhooks/deactivate-204']));
    // No secret in the ledger: only ids, the host, times and seeds.
    const ledger = readFileSync(ledgerPath(join(cwd, '.conformance')), 'utf8');
    for (const line of lines.filter((l) => /SECRET|EXPIRED_TOKEN/.test(l))) expect(ledger).not.toContain(line.slice(line.indexOf('=') + 1));
  });

  it('a later run with one spent endpoint named passes, the checks that need one skipped for the precondition naming the run that spent it; certification refuses', () => {
    const last = runs[3]!;
    expect(last.code, last.stdout).toBe(0);
    const deactivate = checkOf(last.report, 'webhooks/deactivate-204');
    expect(deactivate).toMatchObject({ status: 'skip', skipKind: 'precondition' });
    expect(deactivate.reason).toContain(`${ids[0]} by run `);
    expect(deactivate.reason).toContain(`(seed ${runs[0]!.report.seed}, webhooks/deactivate-204)`);
    expect(deactivate.reason).toContain('Set CONFORMANCE_WEBHOOK_ENDPOINT_ID to an active one not yet spent');
    const refusals = certificationOf(last.report).refusals;
    expect(refusals).toEqual(expect.arrayContaining([expect.stringMatching(/^webhooks\/deactivate-204 was skipped for a precondition/)]));
  });
});

/**
 * The reference behind a front that takes the other reading of a repeat deactivation: an endpoint
 * deactivated once answers 404 resource_not_found (the reference's own 404, for an id it does not
 * have), as a host that no longer counts it as present.
 */
async function goneAnswers404(upstream: string, gone: Set<string>): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const m = /^(\/v1\/businesses\/[^/]+\/webhook-endpoints\/)([^/?]+)$/.exec(req.url ?? '');
      const id = m?.[2];
      const path = req.method === 'DELETE' && id && gone.has(id) ? `${m![1]}01a1e5ed-0000-7000-8000-000000000000` : req.url!;
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length')) as Record<string, string>;
      const answer = await fetch(`${upstream}${path}`, { method: req.method!, headers, ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}) });
      if (req.method === 'DELETE' && id && answer.status === 204) gone.add(id);
      const body = Buffer.from(await answer.arrayBuffer());
      const out: Record<string, string> = {};
      answer.headers.forEach((value, key) => {
        if (key !== 'content-length' && key !== 'transfer-encoding' && key !== 'content-encoding') out[key] = value;
      });
      res.writeHead(answer.status, out).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('a 404 to the deactivation, on a host that answers 404 for a deactivated endpoint', { timeout: 120_000 }, () => {
  let reference: RunningReference;
  let front: { url: string; server: Server };
  const gone = new Set<string>();
  const quiet = { print: () => undefined, printError: () => undefined, tty: false };

  beforeAll(async () => {
    reference = await startReference();
    front = await goneAnswers404(reference.baseUrl, gone);
  });
  afterAll(async () => {
    await new Promise((resolve) => front?.server.close(resolve));
    await reference?.close();
  });

  function hostConfig(cwd: string, endpoint: string) {
    const lines = envLinesFor({ ...reference, baseUrl: front.url });
    writeFileSync(join(cwd, 'host.env'), withEndpoints(lines, [endpoint]), { mode: 0o600 });
    return loadConfig({ envFile: join(cwd, 'host.env'), topic: 'webhooks', reportDir: join(cwd, 'reports') }, {}, cwd);
  }

  it('for an endpoint the ledger does not know: judged as always, a failure of HOOK-DEACTIVATE-204 with the hint', async () => {
    const cwd = tempDir();
    const endpoint = reference.extras.webhookEndpointIds[10]!;
    gone.add(endpoint); // deactivated outside this tool
    const { exitCode, result } = await runConformance(hostConfig(cwd, endpoint), quiet);
    expect(exitCode).toBe(1);
    const check = checkOf(result, 'webhooks/deactivate-204');
    expect(check.status).toBe('fail');
    expect(check.failure?.requirement).toBe('HOOK-DEACTIVATE-204');
    expect(check.reason).toContain('if it was deactivated outside this tool');
    expect(existsSync(ledgerPath(join(cwd, '.conformance')))).toBe(false);
  });

  it('for an endpoint the ledger says this tool deactivated (another run took it meanwhile): that precondition, never a failure', async () => {
    const cwd = tempDir();
    const endpoint = reference.extras.webhookEndpointIds[11]!;
    const config = hostConfig(cwd, endpoint);
    expect(config.fixtures.webhookEndpointId).toBe(endpoint);
    // A run started at the same time spends it first.
    recordSpent({ stateDir: config.settings.stateDir!, baseUrl: front.url, businessId: reference.fixtures.businessId!, seed: 99, runId: 'conf-concurrent' }, 'webhookEndpointId', endpoint, 'webhooks/deactivate-204');
    gone.add(endpoint);
    const { exitCode, result } = await runConformance(config, quiet);
    expect(exitCode).toBe(0);
    const check = checkOf(result, 'webhooks/deactivate-204');
    expect(check).toMatchObject({ status: 'skip', skipKind: 'precondition' });
    expect(check.reason).toContain('by run conf-concurrent at ');
    expect(check.reason).toContain('(seed 99, webhooks/deactivate-204)');
  });

  it('a faithful run on such a host records the reading of the repeat and spends the endpoint', async () => {
    const cwd = tempDir();
    const endpoint = reference.extras.webhookEndpointIds[12]!;
    const config = hostConfig(cwd, endpoint);
    const { exitCode, result } = await runConformance(config, quiet);
    expect(exitCode).toBe(0);
    expect(checkOf(result, 'webhooks/deactivate-204').status).toBe('pass');
    expect(JSON.stringify(checkOf(result, 'webhooks/repeat-deactivation').readings)).toContain('404');
    expect(readSpent({ stateDir: config.settings.stateDir!, baseUrl: front.url, businessId: reference.fixtures.businessId! }, 'webhookEndpointId').map((e) => e.id)).toEqual([endpoint]);
  });
});
