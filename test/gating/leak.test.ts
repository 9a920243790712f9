// The leak scan before any file is written knows the tokens the run obtained, not only the
// configured secrets: a canary token handed out by a fake token endpoint, injected into a report
// or a certificate, blocks the write, and the CLI exits 2.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, registerCommand } from '../../cli/main.ts';
import type { RunConfig } from '../../harness/config.ts';
import { loadConfig } from '../../harness/config.ts';
import { HarnessError } from '../../harness/errors.ts';
import { withCheckBudgets } from '../../harness/gating/plan.ts';
import type { RunResult } from '../../harness/result.ts';
import { runConformance } from '../../harness/runner.ts';
import { CANARY_SECRET, CANARY_TOKEN, fakeEnv, startFakeTarget } from '../harness/fixtures/fake-target.ts';
import type { FakeTarget } from '../harness/fixtures/fake-target.ts';

const FIXTURE_SUITES = fileURLToPath(new URL('./fixtures/suites', import.meta.url));
const quiet = { print: () => undefined, printError: () => undefined, tty: false, suitesDir: FIXTURE_SUITES };

/** A renderer bug, simulated: the token lands in a note of the result after every redaction. */
const injectCanary = (result: RunResult): RunResult => ({ ...result, notes: [...result.notes, { check: 'wallet/within-budget', text: `token ${CANARY_TOKEN}` }] });

describe('leak scan before write', { timeout: 120_000 }, () => {
  let fake: FakeTarget;
  const configFor = (dir: string): RunConfig =>
    withCheckBudgets(loadConfig({ topic: 'wallet', seed: '1', runs: '2', reportDir: dir }, fakeEnv(fake), tmpdir()));

  beforeAll(async () => {
    fake = await startFakeTarget();
  });
  afterAll(async () => {
    await fake?.close();
  });

  it('the canary is a token the run obtained, not a configured secret', () => {
    expect(CANARY_TOKEN).not.toContain(CANARY_SECRET);
    expect(configFor(mkdtempSync(join(tmpdir(), 'gating-leak-'))).apps.primary?.clientSecret).toBe(CANARY_SECRET);
  });

  it('without injection the reports are written and the obtained token is in none of them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gating-leak-'));
    const { result } = await runConformance(configFor(dir), quiet);
    expect(fake.tokenRequests).toBeGreaterThan(0);
    expect(result.summary.total).toBeGreaterThan(0);
    for (const file of readdirSync(dir)) expect(readFileSync(join(dir, file), 'utf8'), file).not.toContain(CANARY_TOKEN);
  });

  it('a report into which the obtained token was injected is not written (SECRET_LEAK_BLOCKED)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gating-leak-'));
    const run = runConformance(configFor(dir), { ...quiet, finalize: injectCanary });
    await expect(run).rejects.toBeInstanceOf(HarnessError);
    await expect(run).rejects.toMatchObject({ code: 'SECRET_LEAK_BLOCKED' });
    await run.catch((error: Error) => expect(error.message).not.toContain(CANARY_TOKEN));
    expect(readdirSync(dir).filter((f) => !f.endsWith('.tmp'))).toEqual([]);
  });

  it('a certificate carrying the token is blocked too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gating-leak-'));
    const run = runConformance(configFor(dir), {
      ...quiet,
      afterReports: async (_result, leakScan) => leakScan({ 'certificate.json': JSON.stringify({ note: CANARY_TOKEN }) }),
    });
    await expect(run).rejects.toMatchObject({ code: 'SECRET_LEAK_BLOCKED', message: expect.stringContaining('certificate.json') });
    expect(existsSync(join(dir, 'certificate.json'))).toBe(false);
  });

  it('the CLI turns the block into exit 2 with one line naming the file, never the token', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gating-leak-'));
    registerCommand({
      name: 'leaky-run',
      summary: 'test only: a run whose report carries the obtained token',
      usage: 'conformance leaky-run',
      options: {},
      run: async () => (await runConformance(configFor(dir), { ...quiet, finalize: injectCanary })).exitCode,
    });
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(['leaky-run'], { out: (l) => out.push(l), err: (l) => err.push(l) });
    expect(code).toBe(2);
    expect(err.join('\n')).toMatch(/SECRET_LEAK_BLOCKED/);
    expect(err.join('\n')).toContain('report.json');
    expect([...out, ...err].join('\n')).not.toContain(CANARY_TOKEN);
  });
});
