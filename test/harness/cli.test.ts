import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CANARY_SECRET, fakeEnv, startFakeTarget } from './fixtures/fake-target.ts';
import { cli, hasStackTrace } from './fixtures/spawn.ts';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('conformance CLI (child process)', () => {
  it('help lists the commands and exits 0, from any working directory', async () => {
    const result = await cli(['help'], {}, tmpdir());
    expect(result.code).toBe(0);
    for (const command of ['run', 'serve', 'help']) expect(result.stdout).toContain(`  ${command} `);
  });

  it('a bad flag or command is one line on stderr, exit 2, no stack trace', async () => {
    for (const args of [['run', '--nope'], ['frobnicate'], ['run', '--topic', 'walet'], ['run', '--runs', 'many']]) {
      const result = await cli(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/^conformance: .+ \[[A-Z_]+\]\n$/);
      expect(hasStackTrace(result.stderr)).toBe(false);
    }
  });

  it('a missing variable names itself and the topics needing it', async () => {
    const result = await cli(['run', '--topic', 'wallet'], { CONFORMANCE_BASE_URL: 'http://127.0.0.1:9' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('CONFORMANCE_TOKEN_URL');
    expect(result.stderr).toContain('(wallet)');
    expect(result.stderr).toContain('[CONF_MISSING_VARIABLE]');
  });

  it('an unreachable host exits 2 within the timeout, with no stack trace', async () => {
    const port = await closedPort();
    const reportDir = mkdtempSync(join(tmpdir(), 'conformance-cli-'));
    const result = await cli(['run', '--report-dir', reportDir], {
      ...fakeEnv({ baseUrl: `http://127.0.0.1:${port}`, tokenUrl: `http://127.0.0.1:${port}/oauth2/token` }),
      CONFORMANCE_TIMEOUT_MS: '2000',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('[TARGET_UNREACHABLE]');
    expect(result.stderr).toContain('ECONNREFUSED');
    expect(hasStackTrace(result.stderr)).toBe(false);
    expect(result.ms).toBeLessThan(15_000);
    expect(result.stdout + result.stderr).not.toContain(CANARY_SECRET);
  });

  it('refused credentials exit 2 with CREDENTIALS_REFUSED; the secret appears nowhere', async () => {
    const fake = await startFakeTarget({ refuseCredentials: true });
    try {
      const result = await cli(['run', '--report-dir', mkdtempSync(join(tmpdir(), 'conformance-cli-'))], fakeEnv(fake));
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('[CREDENTIALS_REFUSED]');
      expect(result.stdout + result.stderr).not.toContain(CANARY_SECRET);
    } finally {
      await fake.close();
    }
  });
});
