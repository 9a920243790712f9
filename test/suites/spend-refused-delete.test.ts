// A host that wrongly deactivates the configured webhook endpoint for a DELETE without valid
// credentials has spent it: auth-ordering records it in the ledger (harness/ledger.ts) like any
// deactivation, so the next run on that host takes a fresh endpoint instead of judging a spent one.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envLinesFor } from '../../harness/config.ts';
import { readSpent } from '../../harness/ledger.ts';
import { startReference, type RunningReference } from '../../reference/index.ts';
import { cli } from '../harness/fixtures/spawn.ts';

describe('a DELETE with bad credentials answered 2xx on a host', { timeout: 120_000 }, () => {
  const cwd = mkdtempSync(join(tmpdir(), 'conformance-spend-'));
  const seed = Math.floor(Math.random() * 2 ** 31);
  let reference: RunningReference;
  let run: Awaited<ReturnType<typeof cli>>;

  beforeAll(async () => {
    // The deactivation is mounted ahead of authentication: a DELETE without a token deactivates.
    reference = await startReference({ defects: ['blind-delete-skips-authentication'] });
    writeFileSync(join(cwd, 'host.env'), `${envLinesFor(reference).join('\n')}\n`, { mode: 0o600 });
    process.stdout.write(`spend-refused-delete: seed ${seed}\n`);
    run = await cli(['run', '--env-file', 'host.env', '--topic', 'auth-ordering', '--check', 'auth-ordering/no-authorization-401', '--seed', String(seed), '--report-dir', 'r'], {}, cwd);
  }, 100_000);
  afterAll(async () => {
    await reference?.close();
  });

  it('fails the check and records the endpoint as spent by it', () => {
    expect(run.code, run.stdout).toBe(1);
    const endpoint = reference.fixtures.webhookEndpointId!;
    const spent = readSpent({ stateDir: join(cwd, '.conformance'), baseUrl: reference.baseUrl, businessId: reference.fixtures.businessId! }, 'webhookEndpointId');
    expect(spent.map((e) => [e.id, e.check])).toEqual([[endpoint, 'auth-ordering/no-authorization-401']]);
  });
});
