import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CANARY_SECRET, fakeEnv, startFakeTarget } from './fixtures/fake-target.ts';
import { spawn } from 'node:child_process';
import { ROOT, cli, hasStackTrace } from './fixtures/spawn.ts';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('conformance CLI (child process)', { timeout: 120_000 }, () => {
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

  it('--env-file naming no file is the CLI\'s error (exit 2, CONF_ENV_FILE), also when the bin runs by its shebang as npx does', async () => {
    const missing = join(tmpdir(), 'conformance-no-such.env');
    for (const result of [
      await cli(['run', '--env-file', missing]),
      await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(`${ROOT}bin/conformance.mjs`, ['run', '--env-file', missing], { env: { PATH: process.env.PATH ?? '' } });
        let stderr = '';
        child.stderr.on('data', (c) => (stderr += c));
        child.on('close', (code) => resolve({ code, stderr }));
      }),
    ]) {
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('[CONF_ENV_FILE]');
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
    expect(result.ms).toBeLessThan(20_000); // mostly process start-up; the probe itself gives up after 2 s
    expect(result.stdout + result.stderr).not.toContain(CANARY_SECRET);
    // A report still says why.
    const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as { verdict: string; harnessErrors: Array<{ code: string }> };
    expect(report.verdict).toBe('error');
    expect(report.harnessErrors.map((e) => e.code)).toEqual(['TARGET_UNREACHABLE']);
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

  it('serve prints the CONFORMANCE_* lines with secrets masked, writes them whole to --env-out and stops on SIGTERM', async () => {
    const envOut = join(mkdtempSync(join(tmpdir(), 'conformance-serve-')), 'reference.env');
    const child = spawn(process.execPath, [`${ROOT}bin/conformance.mjs`, 'serve', '--env-out', envOut], {
      env: { PATH: process.env.PATH ?? '' },
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve printed no token URL: ${stdout} ${stderr}`)), 30_000);
      child.stdout.on('data', (c) => {
        stdout += c;
        if (stdout.includes('CONFORMANCE_CLIENT_SECRET=')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    // --env-out is written (whole, by a rename) after printing: wait for it, not for a fixed time.
    for (const deadline = Date.now() + 10_000; !existsSync(envOut) && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const lines = stdout.trim().split('\n');
    for (const line of lines) expect(line).toMatch(/^CONFORMANCE_[A-Z_]+=/);
    const baseUrl = lines.find((l) => l.startsWith('CONFORMANCE_BASE_URL='))!.split('=')[1]!;
    expect(new URL(baseUrl).hostname).toBe('127.0.0.1');
    const written = readFileSync(envOut, 'utf8').trim().split('\n');
    const secretNames = ['CONFORMANCE_CLIENT_SECRET', 'CONFORMANCE_LIMITED_CLIENT_SECRET', 'CONFORMANCE_OTHER_CLIENT_SECRET', 'CONFORMANCE_EXPIRED_TOKEN'];
    const isSecret = (line: string) => secretNames.includes(line.split('=')[0]!);
    // The same lines, in the same order; the secrets only in the file.
    expect(written.map((l) => (isSecret(l) ? `${l.split('=')[0]}=<redacted>` : l))).toEqual(lines);
    expect(written.filter(isSecret)).toHaveLength(4);
    for (const line of written.filter(isSecret)) {
      const value = line.slice(line.indexOf('=') + 1);
      expect(value).not.toBe('<redacted>');
      expect(stdout + stderr).not.toContain(value);
    }
    expect(stderr).toBe('');
  });
});
