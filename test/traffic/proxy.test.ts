// The live proxy: traffic passes through unchanged (status, headers, body; a redirect is handed
// back, not followed), the judge sees what a recording would, findings print as they happen, and
// the command writes the reports once the traffic goes idle.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../../reference/index.ts';
import { readTrafficEnv } from '../../traffic/env.ts';
import { startProxy } from '../../traffic/proxy.ts';
import { clientSession } from './client.ts';
import { tempDir } from './support.ts';
import { main } from '../../cli/main.ts';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

async function reference(defects: string[] = []): Promise<RunningReference> {
  const r = await startReference({ defects });
  closers.push(() => r.close());
  return r;
}

describe('conformance proxy', () => {
  it('forwards a session unchanged and judges it: faithful traffic passes', async () => {
    const ref = await reference();
    const findings: string[] = [];
    const proxy = await startProxy({ upstream: ref.baseUrl, env: readTrafficEnv(undefined), onFinding: (l) => findings.push(l) });
    const direct = await fetch(`${ref.baseUrl}/v1/businesses/${ref.fixtures.businessId}/wallet/balance`, { headers: { 'x-request-id': 'p-1' } });
    const proxied = await fetch(`${proxy.url}/v1/businesses/${ref.fixtures.businessId}/wallet/balance`, { headers: { 'x-request-id': 'p-1' } });
    expect(proxied.status).toBe(direct.status);
    expect(proxied.headers.get('content-type')).toBe(direct.headers.get('content-type'));
    expect(proxied.headers.get('x-request-id')).toBe('p-1');
    expect(Object.keys(JSON.parse(await proxied.text()))).toEqual(Object.keys(JSON.parse(await direct.text())));
    const har = await clientSession(ref, proxy.url);
    const judgement = await proxy.stop();
    // The session's API calls and the wallet read above went through; its token request went to the auth origin.
    const apiCalls = har.log.entries.filter((e) => e.request.url.startsWith(proxy.url)).length;
    expect(proxy.count()).toBe(apiCalls + 1);
    expect(judgement!.result.verdict).toBe('pass');
    expect(findings.filter((l) => !l.startsWith('client side'))).toEqual([]);
  });

  it('prints a finding as it happens, naming its requirement', async () => {
    const ref = await reference(['available-differs-from-current']);
    const findings: string[] = [];
    const proxy = await startProxy({ upstream: ref.baseUrl, env: readTrafficEnv(undefined), onFinding: (l) => findings.push(l) });
    closers.push(() => proxy.stop());
    const token = await fetch(ref.tokenUrl, { method: 'POST', headers: { authorization: `Basic ${Buffer.from(`${ref.apps.primary.clientId}:${ref.apps.primary.clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' });
    const { access_token } = (await token.json()) as { access_token: string };
    await fetch(`${proxy.url}/v1/businesses/${ref.fixtures.businessId}/wallet/balance`, { headers: { authorization: `Bearer ${access_token}` } });
    await expect.poll(() => findings.join('\n'), { timeout: 3000 }).toContain('WAL-AVAILABLE-EQUALS-CURRENT');
    expect(findings.join('\n')).not.toContain(access_token);
  });

  it('hands a redirect back instead of following it, and streams bodies through', async () => {
    const upstream = createServer((req, res) => {
      if (req.url === '/v1/moved') res.writeHead(302, { location: '/v1/elsewhere' }).end();
      else {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('part one, ');
        setTimeout(() => res.end('part two'), 50);
      }
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
    closers.push(() => new Promise((r) => upstream.close(r)));
    const proxy = await startProxy({ upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, env: readTrafficEnv(undefined) });
    closers.push(() => proxy.stop());
    const moved = await fetch(`${proxy.url}/v1/moved`, { redirect: 'manual' });
    expect(moved.status).toBe(302);
    expect(moved.headers.get('location')).toBe('/v1/elsewhere');
    expect(await (await fetch(`${proxy.url}/v1/stream`)).text()).toBe('part one, part two');
  });

  it('as a command: writes the reports after --until-idle seconds without traffic', async () => {
    const ref = await reference();
    const dir = tempDir();
    const out: string[] = [];
    const err: string[] = [];
    const done = main(['proxy', '--upstream', ref.baseUrl, '--until-idle', '1', '--report-dir', join(dir, 'reports')], { out: (l) => out.push(l), err: (l) => err.push(l) });
    await expect.poll(() => out.find((l) => l.includes('listening on')), { timeout: 5000 }).toBeDefined();
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out.find((l) => l.includes('listening on'))!)![1]!;
    await clientSession(ref, url);
    expect(await done).toBe(0);
    expect(err).toEqual([]);
    expect(existsSync(join(dir, 'reports', 'report.json'))).toBe(true);
    expect(out.join('\n')).toContain('verdict: pass');
  });

  it('refuses an upstream that is no http URL', async () => {
    const err: string[] = [];
    expect(await main(['proxy', '--upstream', 'ftp://x'], { out: () => {}, err: (l) => err.push(l) })).toBe(2);
    expect(err[0]).toContain('CONF_INVALID_VALUE');
  });
});

describe('conformance proxy as a process', () => {
  it('writes the reports when stopped with SIGTERM', async () => {
    const { spawn } = await import('node:child_process');
    const { ROOT } = await import('../harness/fixtures/spawn.ts');
    const ref = await reference();
    const dir = tempDir();
    const child = spawn(process.execPath, ['--', `${ROOT}bin/conformance.mjs`, 'proxy', '--upstream', ref.baseUrl, '--report-dir', join(dir, 'reports')], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } });
    let stdout = '';
    child.stdout.on('data', (c) => (stdout += c));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await expect.poll(() => /listening on (http:\S+),/.exec(stdout)?.[1], { timeout: 20_000 }).toBeDefined();
    const url = /listening on (http:\S+),/.exec(stdout)![1]!;
    await fetch(`${url}/v1/businesses/${ref.fixtures.businessId}/wallet/balance`);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toContain('judged 1 exchange');
    expect(existsSync(join(dir, 'reports', 'junit.xml'))).toBe(true);
  }, 60_000);
});
