import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../harness/runner.ts';
import { loadOrder, orderTopics } from '../../harness/vitest-options.ts';
import type { RunResult } from '../../harness/result.ts';
import { CANARY_SECRET, CANARY_TOKEN, fakeEnv, startFakeTarget } from './fixtures/fake-target.ts';
import type { FakeTarget } from './fixtures/fake-target.ts';
import { fixtureRun, hasStackTrace } from './fixtures/spawn.ts';
import type { Finished } from './fixtures/spawn.ts';

describe('a run over fixture suites against a misbehaving host', { timeout: 60_000 }, () => {
  let fake: FakeTarget;
  let full: Finished;
  let safe: Finished;
  let fullDir: string;
  let safeCalls: FakeTarget['calls'];

  beforeAll(async () => {
    fake = await startFakeTarget();
    fullDir = mkdtempSync(join(tmpdir(), 'conformance-run-'));
    full = await fixtureRun(['run', '--topic', 'wallet,messages,webhooks', '--report-dir', fullDir, '--seed', '77'], fakeEnv(fake));
    const before = fake.calls.length;
    safe = await fixtureRun(['run', '--topic', 'wallet', '--profile', 'safe', '--report-dir', mkdtempSync(join(tmpdir(), 'conformance-run-'))], fakeEnv(fake));
    safeCalls = fake.calls.slice(before);
  }, 120_000);
  afterAll(async () => {
    await fake.close();
  });

  it('exits 1 when a check fails, and prints the seed, progress and summary', () => {
    expect(full.stderr).toBe('');
    expect(full.code).toBe(1);
    expect(full.stdout).toContain('seed: 77 (replay with --seed 77)');
    expect(full.stdout).toMatch(/✗ messages +0 passed, 1 failed/);
    expect(full.stdout).toMatch(/^total +fail +2 +1 +0 +1 +0$/m);
  });

  it('writes the four reports and the exchange log', () => {
    for (const file of ['report.json', 'report.md', 'report.html', 'junit.xml', 'exchanges.jsonl']) {
      expect(existsSync(join(fullDir, file)), file).toBe(true);
    }
    const report = JSON.parse(readFileSync(join(fullDir, 'report.json'), 'utf8')) as RunResult;
    expect(report.seed).toBe(77);
    expect(report.target.embedded).toBe(false);
    expect(report.topics.map((t) => [t.id, t.verdict])).toEqual([
      ['wallet', 'pass'],
      ['webhooks', 'skipped'],
      ['messages', 'fail'],
    ]);
    const skipped = report.topics[1]!.checks[0]!;
    expect(skipped.reason).toContain('no webhook endpoint configured');
  });

  it('the canary secret and token appear in no report, log or output line', () => {
    const texts = [full.stdout, full.stderr, safe.stdout, safe.stderr];
    for (const file of readdirSync(fullDir)) texts.push(readFileSync(join(fullDir, file), 'utf8'));
    // The failing check quotes the echoed body, so the canaries were there to leak.
    expect(readFileSync(join(fullDir, 'report.json'), 'utf8')).toContain('<redacted>');
    for (const text of texts) {
      expect(text).not.toContain(CANARY_SECRET);
      expect(text).not.toContain(CANARY_TOKEN);
      expect(hasStackTrace(text)).toBe(false);
    }
  });

  it('X-Request-Id carries the run id printed at the start', () => {
    const runId = /conformance run (\S+)/.exec(full.stdout)?.[1];
    expect(runId).toBeTruthy();
    const ids = fake.calls.filter((c) => c.url.includes('/wallet/balance')).map((c) => String(c.headers['x-request-id']));
    expect(ids.some((id) => id.startsWith(`${runId}-`))).toBe(true);
  });

  it('profile safe sends nothing but GET to the API, even when a suite tries', () => {
    expect(safe.code, safe.stdout + safe.stderr).toBe(0); // the fixture catches the refusals itself
    const apiCalls = safeCalls.filter((c) => c.url !== '/oauth2/token');
    expect(apiCalls.length).toBeGreaterThan(0);
    expect(new Set(apiCalls.map((c) => c.method))).toEqual(new Set(['GET']));
  });
});

describe('sharding', () => {
  it('splits the topic files over shards and merges their reports into one', async () => {
    const fake = await startFakeTarget();
    try {
      const dirs = [1, 2].map(() => mkdtempSync(join(tmpdir(), 'conformance-shard-')));
      const args = (i: number) => ['run', '--topic', 'wallet,webhooks', '--seed', '9', '--shard', `${i}/2`, '--report-dir', dirs[i - 1]!];
      const shards = [await fixtureRun(args(1), fakeEnv(fake)), await fixtureRun(args(2), fakeEnv(fake))];
      const ran = shards.map((s) => ['wallet', 'webhooks'].filter((t) => new RegExp(`[✓✗!⚠-] ${t} `).test(s.stdout)));
      expect(ran.flat().sort(), shards.map((s) => s.stdout + s.stderr).join('\n')).toEqual(['wallet', 'webhooks']);
      const mergedDir = mkdtempSync(join(tmpdir(), 'conformance-merged-'));
      const merged = await fixtureRun(['run', '--report-dir', mergedDir, '--merge-reports', dirs[0]!, dirs[1]!], {});
      expect(merged.code, merged.stdout + merged.stderr).toBe(0);
      const report = JSON.parse(readFileSync(join(mergedDir, 'report.json'), 'utf8')) as RunResult;
      const checks = report.topics.flatMap((t) => t.checks.map((c) => `${c.id}:${c.status}`)).sort();
      expect(checks).toEqual(['wallet/reads-balance:pass', 'wallet/writes:pass', 'webhooks/skips:skip']);
    } finally {
      await fake.close();
    }
  }, 120_000);
});

describe('runner pieces', () => {
  it('runs request-id, problem-details and schemas last', () => {
    expect(orderTopics(['schemas', 'wallet', 'request-id', 'problem-details', 'auth-ordering', 'messages'], (t) => t)).toEqual([
      'auth-ordering',
      'wallet',
      'messages',
      'request-id',
      'problem-details',
      'schemas',
    ]);
  });

  it('loads the longest chains of round trips first when checks overlap, the readers of the whole run still last', () => {
    const topics = ['schemas', 'wallet', 'request-id', 'validation', 'problem-details', 'auth-ordering', 'messages'];
    expect(loadOrder(topics, (t) => t)).toEqual(['validation', 'auth-ordering', 'wallet', 'messages', 'request-id', 'problem-details', 'schemas']);
  });

  it('maps verdicts to exit codes', () => {
    expect(exitCodeOf({ verdict: 'pass' } as RunResult)).toBe(0);
    expect(exitCodeOf({ verdict: 'fail' } as RunResult)).toBe(1);
    expect(exitCodeOf({ verdict: 'error' } as RunResult)).toBe(2);
  });
});
