// Hostile API hosts: the run against a host that misbehaves at the transport and format level ends
// in bounded time, exits 1 with failures that carry evidence, stays under 300 MB, prints no stack
// trace, leaks no secret, and never sends credentials to the origin a redirect points at.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../harness/result.ts';
import type { ApiMisbehaviour, Running } from './hostile-servers.ts';
import { ACCESS_TOKEN, CLIENT_SECRET, hostileEnv, startHostileApi, startStranger, startTokenEndpoint } from './hostile-servers.ts';
import type { MeasuredRun } from './measured-run.ts';
import { STACK_LINE, measuredCliRun } from './measured-run.ts';

/** Topics with many plain reads of configured resources: fast, and every check meets the host. */
const TOPICS = 'wallet,messages';
/** Far above what a run with an 800 ms request timeout needs, far below "hangs". */
const BOUND_MS = 120_000;
const MEMORY_LIMIT_MB = 300;
/** Runs at a time: two cores. */
const PARALLEL = 2;

const MODES: ApiMisbehaviour[] = ['reset', 'hang', 'huge-body', 'invalid-json', 'html-error', 'wrong-content-type', 'redirect', 'drip'];

const runs = new Map<ApiMisbehaviour, MeasuredRun>();
const servers: Running[] = [];
let token: Running;
let stranger: Running;

beforeAll(async () => {
  token = await startTokenEndpoint();
  stranger = await startStranger();
  servers.push(token, stranger);
  const queue = [...MODES];
  const lane = async () => {
    for (let mode = queue.shift(); mode; mode = queue.shift()) {
      const api = await startHostileApi(mode, stranger.origin);
      servers.push(api);
      runs.set(mode, await measuredCliRun(['--topic', TOPICS], hostileEnv(api, token), BOUND_MS + 30_000));
      await api.close();
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, lane));
  for (const [mode, run] of runs) {
    console.log(`hostile ${mode}: exit ${run.code}, ${(run.ms / 1000).toFixed(1)} s, peak ${run.peakMb?.toFixed(0) ?? '?'} MB`);
  }
}, 8 * 60_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

function failedChecks(report: RunResult) {
  return report.topics.flatMap((t) => t.checks).filter((c) => c.status === 'fail');
}

/** What every hostile run must show, whatever the misbehaviour. */
function expectContainedRun(mode: ApiMisbehaviour): MeasuredRun {
  const run = runs.get(mode)!;
  const context = `${mode}: exit ${run.code}, ${run.ms} ms\n${run.stdout.slice(-1500)}\n${run.stderr.slice(-1500)}`;
  expect(run.killed, `${mode} did not end by itself`).toBe(false);
  expect(run.ms).toBeLessThan(BOUND_MS);
  expect(run.code, context).toBe(1);
  expect(STACK_LINE.test(run.stdout), `${mode}: stack trace on stdout`).toBe(false);
  expect(STACK_LINE.test(run.stderr), `${mode}: stack trace on stderr`).toBe(false);
  expect(run.peakMb, `${mode}: peak memory not measured`).toBeDefined();
  expect(run.peakMb!, `${mode}: peak memory`).toBeLessThan(MEMORY_LIMIT_MB);
  expect(run.report, `${mode}: no report.json`).toBeDefined();
  const failed = failedChecks(run.report!);
  expect(failed.length, `${mode}: no failed check`).toBeGreaterThan(0);
  for (const check of failed) {
    expect(check.evidence.length, `${mode}: ${check.id} failed without evidence`).toBeGreaterThan(0);
    expect(check.reason, `${mode}: ${check.id} failed without a reason`).toBeTruthy();
  }
  for (const text of [run.stdout, run.stderr, ...run.reportTexts]) {
    expect(text).not.toContain(CLIENT_SECRET);
    expect(text).not.toContain(ACCESS_TOKEN);
  }
  return run;
}

/** Every exchange kept as evidence in the report. */
function evidenceOf(run: MeasuredRun) {
  return failedChecks(run.report!).flatMap((c) => c.evidence);
}

describe('a run against a hostile API host', () => {
  it('connection reset on every request: failures name the transport error', () => {
    const run = expectContainedRun('reset');
    expect(evidenceOf(run).some((x) => x.transportError !== undefined && x.response === undefined)).toBe(true);
  });

  it('a host that never answers: each request gives up at the timeout', () => {
    const run = expectContainedRun('hang');
    const timedOut = evidenceOf(run).filter((x) => x.transportError !== undefined);
    expect(timedOut.length).toBeGreaterThan(0);
    // The 800 ms timeout holds: no request waited much longer.
    for (const x of timedOut) expect(x.durationMs).toBeLessThan(5_000);
  });

  it('a 20 MB body: cut off at the response cap, memory stays low', () => {
    const run = expectContainedRun('huge-body');
    expect(evidenceOf(run).some((x) => /larger than \d+ bytes/.test(x.transportError ?? ''))).toBe(true);
  });

  it('invalid JSON labelled JSON: fails, and the evidence keeps the body as received', () => {
    const run = expectContainedRun('invalid-json');
    expect(evidenceOf(run).some((x) => x.response?.body?.includes('{not json'))).toBe(true);
  });

  it('an HTML error page: fails with the HTML as evidence', () => {
    const run = expectContainedRun('html-error');
    expect(evidenceOf(run).some((x) => x.response?.status === 500 && x.response.body?.includes('<html'))).toBe(true);
  });

  it('JSON labelled text/plain: fails', () => {
    const run = expectContainedRun('wrong-content-type');
    expect(evidenceOf(run).some((x) => x.response?.headers['content-type']?.startsWith('text/plain'))).toBe(true);
  });

  it('a redirect to another origin: not followed, and no credential reaches that origin', () => {
    const run = expectContainedRun('redirect');
    expect(evidenceOf(run).some((x) => x.response?.status === 307)).toBe(true);
    for (const request of stranger.requests) {
      expect(request.headers.authorization, `${request.method} ${request.url} carried Authorization`).toBeUndefined();
      expect(JSON.stringify(request)).not.toContain(CLIENT_SECRET);
      expect(JSON.stringify(request)).not.toContain(ACCESS_TOKEN);
    }
    // Not following at all is the strongest form: the stranger heard nothing.
    expect(stranger.requests).toEqual([]);
  });

  it('a body dripped a byte at a time: the whole-request timeout ends each read', () => {
    const run = expectContainedRun('drip');
    const cut = evidenceOf(run).filter((x) => x.transportError !== undefined);
    expect(cut.length).toBeGreaterThan(0);
    for (const x of cut) expect(x.durationMs).toBeLessThan(5_000);
  });
});
