// The checker's HTTP client (harness/http-client.ts) against autocannon on the same route of the
// reference: authenticated GET of the wallet balance, as fast as each can, the client's concurrency
// equal to autocannon's connections. The reference runs in its own process (reference-child.ts);
// the generators take turns in this process, autocannon first then the client, once per repeat,
// so drift in the machine's load hits both alike. Each repeat gives a ratio; we report the median
// ratio. A bare undici.request loop (the library the client is built on, with nothing recorded)
// runs third in each repeat: it shows how much of the gap is the library and how much the
// client's own work (redaction, evidence, exchange log).
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request as undiciRequest } from 'undici';
import { createApiClient } from '../harness/http-client.ts';
import type { AppCredentials, SuiteConfig } from '../core/model.ts';
import { median } from './stats.ts';

export interface ReferenceAddress {
  baseUrl: string;
  tokenUrl: string;
  audience: string;
  primary: AppCredentials;
  businessId: string;
}

// autocannon ships no types; the little used here is typed locally.
interface AutocannonResult {
  requests: { total: number };
  duration: number;
  '2xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  pipelining: number;
  duration: number;
  headers: Record<string, string>;
}) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface ThroughputSample {
  autocannonPerS: number;
  clientPerS: number;
  bareUndiciPerS: number;
  ratio: number;
  /** Non-2xx answers or transport errors of either side (should be 0). */
  failures: number;
}

export interface ThroughputFigures {
  connections: number;
  seconds: number;
  /** Whether the client appended every exchange to a log, as in a run. */
  exchangeLog: boolean;
  samples: ThroughputSample[];
  autocannonPerS: number;
  clientPerS: number;
  bareUndiciPerS: number;
  ratio: number;
}

async function startReferenceProcess(): Promise<{ child: ChildProcess; address: ReferenceAddress }> {
  const child = fork(fileURLToPath(new URL('reference-child.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const address = await new Promise<ReferenceAddress>((resolve, reject) => {
    child.once('message', (message) => resolve(message as ReferenceAddress));
    child.once('exit', (code) => reject(new Error(`the reference process ended before it was ready (exit ${code})`)));
  });
  return { child, address };
}

async function fetchToken(address: ReferenceAddress): Promise<string> {
  const basic = Buffer.from(`${address.primary.clientId}:${address.primary.clientSecret}`).toString('base64');
  const reply = await fetch(address.tokenUrl, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', audience: address.audience }).toString(),
  });
  const { access_token: token } = (await reply.json()) as { access_token: string };
  return token;
}

async function runAutocannon(address: ReferenceAddress, token: string, connections: number, seconds: number): Promise<{ perS: number; failures: number }> {
  const url = `${address.baseUrl}/v1/businesses/${address.businessId}/wallet/balance`;
  const result = await autocannon({ url, connections, pipelining: 1, duration: seconds, headers: { authorization: `Bearer ${token}` } });
  return { perS: result['2xx'] / seconds, failures: result.non2xx + result.errors + result.timeouts };
}

async function runClient(address: ReferenceAddress, connections: number, seconds: number, exchangeLogPath: string): Promise<{ perS: number; failures: number }> {
  const config: SuiteConfig = {
    target: { baseUrl: address.baseUrl, tokenUrl: address.tokenUrl, audience: address.audience, embedded: true },
    apps: { primary: address.primary },
    fixtures: { businessId: address.businessId },
    params: { limit: 'limit', cursor: 'cursor', status: 'status', to: 'to' },
    settings: {
      runId: 'bench',
      profile: 'safe',
      seed: 1,
      runs: 1,
      maxRequests: Number.MAX_SAFE_INTEGER,
      concurrency: connections,
      timeoutMs: 10_000,
      settleTimeoutMs: 10_000,
      exchangeLogPath,
    },
    secrets: [],
  };
  const api = createApiClient(config);
  try {
    await api.token('primary'); // outside the timed window, as autocannon's token is
    const path = `/v1/businesses/${address.businessId}/wallet/balance`;
    let ok = 0;
    let failures = 0;
    const started = performance.now();
    const deadline = started + seconds * 1000;
    // One loop per connection, like autocannon's connections with pipelining 1.
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < deadline) {
          const response = await api.send({ method: 'GET', path });
          if (response.status === 200) ok++;
          else failures++;
        }
      }),
    );
    return { perS: ok / ((performance.now() - started) / 1000), failures };
  } finally {
    await api.close();
  }
}

async function runBareUndici(address: ReferenceAddress, token: string, connections: number, seconds: number): Promise<{ perS: number; failures: number }> {
  const url = `${address.baseUrl}/v1/businesses/${address.businessId}/wallet/balance`;
  const agent = new Agent({ keepAliveTimeout: 10_000 });
  try {
    let ok = 0;
    let failures = 0;
    const started = performance.now();
    const deadline = started + seconds * 1000;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < deadline) {
          const response = await undiciRequest(url, { dispatcher: agent, headers: { authorization: `Bearer ${token}` } });
          await response.body.text();
          if (response.statusCode === 200) ok++;
          else failures++;
        }
      }),
    );
    return { perS: ok / ((performance.now() - started) / 1000), failures };
  } finally {
    await agent.close();
  }
}

export async function measureClientThroughput(options: { connections: number; seconds: number; repeats: number; exchangeLog: boolean }): Promise<ThroughputFigures> {
  const { child, address } = await startReferenceProcess();
  const work = mkdtempSync(join(tmpdir(), 'conformance-bench-client-'));
  try {
    const token = await fetchToken(address);
    // Warm-up of both paths (JIT, connections), not counted.
    await runAutocannon(address, token, options.connections, 1);
    await runClient(address, options.connections, 1, '');
    const samples: ThroughputSample[] = [];
    for (let i = 0; i < options.repeats; i++) {
      const a = await runAutocannon(address, token, options.connections, options.seconds);
      const logPath = options.exchangeLog ? join(work, `exchanges-${i}.jsonl`) : '';
      const c = await runClient(address, options.connections, options.seconds, logPath);
      const b = await runBareUndici(address, token, options.connections, options.seconds);
      samples.push({
        autocannonPerS: a.perS,
        clientPerS: c.perS,
        bareUndiciPerS: b.perS,
        ratio: c.perS / a.perS,
        failures: a.failures + c.failures + b.failures,
      });
    }
    return {
      connections: options.connections,
      seconds: options.seconds,
      exchangeLog: options.exchangeLog,
      samples,
      autocannonPerS: median(samples.map((s) => s.autocannonPerS)),
      clientPerS: median(samples.map((s) => s.clientPerS)),
      bareUndiciPerS: median(samples.map((s) => s.bareUndiciPerS)),
      ratio: median(samples.map((s) => s.ratio)),
    };
  } finally {
    child.disconnect();
    rmSync(work, { recursive: true, force: true });
  }
}
