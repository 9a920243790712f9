// The project's own runs against the embedded reference record their exchanges (exchanges.jsonl in
// the report directory); `check` holds that traffic, as written and converted to HAR, and never
// fails it: once as the embedded run (with the control origin's clock jumps in it), once as a
// host run given only an env file, whose fixtures let check judge concealment and grant order too.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envLinesFor } from '../../harness/config.ts';
import { startReference, type RunningReference } from '../../reference/index.ts';
import { cli } from '../harness/fixtures/spawn.ts';
import { conformance, jsonlToHar, tempDir, writeJson } from './support.ts';

const problems = (report: any): string[] =>
  report.topics.flatMap((t: any) => t.checks.filter((c: any) => c.status !== 'pass' && c.status !== 'skip').map((c: any) => `${c.id} ${c.failure?.requirement}: ${c.reason}`));

async function checkBoth(jsonl: string, envFile?: string): Promise<any[]> {
  const dir = tempDir();
  const har = writeJson(dir, 'run.har', jsonlToHar(jsonl));
  const reports: any[] = [];
  for (const [name, file] of [['jsonl', jsonl], ['har', har]] as const) {
    const out = join(dir, name);
    const outcome = await conformance(['check', file, ...(envFile ? ['--env-file', envFile] : []), '--report-dir', out]);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
    expect(problems(report), name).toEqual([]);
    expect(outcome.code, name).toBe(0);
    reports.push(report);
  }
  return reports;
}

describe('check on the traffic of the project\'s own runs', () => {
  it('passes an embedded run, from its exchanges.jsonl and from the same traffic as HAR', async () => {
    const dir = tempDir();
    const run = await cli(['run', '--report-dir', dir, '--quiet'], {});
    expect(run.code, run.stderr).toBe(0);
    const [jsonl, har] = await checkBoth(join(dir, 'exchanges.jsonl'));
    // The same verdicts either way: HAR and the log are two spellings of one traffic.
    const statuses = (r: any) => r.topics.flatMap((t: any) => t.checks.map((c: any) => `${c.id}:${c.status}`));
    expect(statuses(har)).toEqual(statuses(jsonl));
    expect(jsonl.summary.passed).toBeGreaterThanOrEqual(20);
  }, 240_000);

  describe('a host run given an env file', () => {
    let reference: RunningReference;
    beforeAll(async () => {
      reference = await startReference();
    });
    afterAll(() => reference.close());

    it('passes, judging concealment and grant order from the fixtures', async () => {
      const dir = tempDir();
      const envFile = join(dir, 'host.env');
      writeFileSync(envFile, `${envLinesFor(reference).join('\n')}\n`, { mode: 0o600 });
      const run = await cli(['run', '--env-file', envFile, '--report-dir', join(dir, 'run'), '--quiet'], {});
      expect(run.code, run.stderr).toBe(0);
      const [report] = await checkBoth(join(dir, 'run', 'exchanges.jsonl'), envFile);
      const byId = new Map(report.topics.flatMap((t: any) => t.checks.map((c: any) => [c.id, c.status])));
      expect(byId.get('traffic/concealment/no-grant-refused')).toBe('pass');
      expect(byId.get('traffic/concealment/foreign-resources')).toBe('pass');
      expect(byId.get('traffic/auth-ordering/grant-before-resource')).toBe('pass');
      // No secret of the env file in any report.
      const secrets = [reference.apps.primary.clientSecret, reference.apps.limited.clientSecret];
      expect(secrets.some((s) => JSON.stringify(report).includes(s))).toBe(false);
    }, 240_000);
  });
});
