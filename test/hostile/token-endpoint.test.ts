// A token endpoint that cannot be used: the run cannot be made, so it ends with exit 2 and one
// plain line naming the problem (stable code, no stack trace, no secret), in bounded time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Running, TokenMisbehaviour } from './hostile-servers.ts';
import { ACCESS_TOKEN, CLIENT_SECRET, hostileEnv, startStranger, startTokenEndpoint } from './hostile-servers.ts';
import type { MeasuredRun } from './measured-run.ts';
import { STACK_LINE, measuredCliRun } from './measured-run.ts';

const BOUND_MS = 60_000;
const MEMORY_LIMIT_MB = 300;
const MODES: Array<Exclude<TokenMisbehaviour, 'none'>> = ['reset', 'html-error', 'hang'];

const runs = new Map<string, MeasuredRun>();
const servers: Running[] = [];

beforeAll(async () => {
  // A plain API host that answers everything: only the token endpoint is at fault.
  const api = await startStranger();
  servers.push(api);
  await Promise.all(
    MODES.map(async (mode) => {
      const token = await startTokenEndpoint(mode);
      servers.push(token);
      runs.set(mode, await measuredCliRun(['--topic', 'wallet'], hostileEnv(api, token), BOUND_MS + 30_000));
    }),
  );
}, 3 * 60_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

function expectRunNotMade(mode: string): MeasuredRun {
  const run = runs.get(mode)!;
  const context = `${mode}: exit ${run.code}\n${run.stdout.slice(-1000)}\n${run.stderr.slice(-1000)}`;
  expect(run.killed, `${mode} did not end by itself`).toBe(false);
  expect(run.ms).toBeLessThan(BOUND_MS);
  expect(run.code, context).toBe(2);
  expect(run.stderr, context).toMatch(/^conformance: .*token endpoint.* \[TOKEN_ENDPOINT_UNREACHABLE\]$/m);
  expect(STACK_LINE.test(run.stdout)).toBe(false);
  expect(STACK_LINE.test(run.stderr)).toBe(false);
  expect(run.peakMb, `${mode}: peak memory not measured`).toBeDefined();
  expect(run.peakMb!).toBeLessThan(MEMORY_LIMIT_MB);
  for (const text of [run.stdout, run.stderr, ...run.reportTexts]) {
    expect(text).not.toContain(CLIENT_SECRET);
    expect(text).not.toContain(ACCESS_TOKEN);
  }
  return run;
}

describe('a run whose token endpoint is unusable', () => {
  it('resets every connection: exit 2, TOKEN_ENDPOINT_UNREACHABLE', () => {
    expectRunNotMade('reset');
  });

  it('answers an HTML error page: exit 2, no access token', () => {
    const run = expectRunNotMade('html-error');
    expect(run.stderr).toContain('HTTP 502');
  });

  it('never answers: exit 2 within the probe timeout', () => {
    expectRunNotMade('hang');
  });
});
