import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HarnessError } from '../../harness/errors.ts';
import type { Exchange } from '../../core/model.ts';
import { inExchangeScope, readAllExchanges, type ExchangeScope } from '../../harness/exchange-log.ts';
import { RESPONSE_SIZE_CAP, createApiClient } from '../../harness/http-client.ts';
import { Pacer, exhaustedFor, parseRetryAfter } from '../../harness/pacing.ts';
import { BUSINESS_ID, CANARY_TOKEN, startFakeTarget } from './fixtures/fake-target.ts';
import type { FakeTarget } from './fixtures/fake-target.ts';
import { suiteConfigFor } from './fixtures/suite-config.ts';

let fake: FakeTarget;
beforeAll(async () => {
  fake = await startFakeTarget();
});
afterAll(async () => {
  await fake.close();
});

const wallet = `/v1/businesses/${BUSINESS_ID}/wallet/balance`;

async function harnessError(promise: Promise<unknown>): Promise<HarnessError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof HarnessError) return error;
    throw error;
  }
  throw new Error('no HarnessError was thrown');
}

describe('tokens', () => {
  it('obtains one token with client_secret_basic and caches it', async () => {
    const api = createApiClient(suiteConfigFor(fake));
    const before = fake.calls.length;
    await api.send({ method: 'GET', path: wallet });
    await api.send({ method: 'GET', path: wallet });
    await api.close();
    const calls = fake.calls.slice(before);
    const tokenCalls = calls.filter((c) => c.url === '/oauth2/token');
    expect(tokenCalls).toHaveLength(1);
    expect(tokenCalls[0]!.method).toBe('POST');
    expect(tokenCalls[0]!.headers.authorization).toMatch(/^Basic /);
    expect(new URLSearchParams(tokenCalls[0]!.body).get('grant_type')).toBe('client_credentials');
    expect(new URLSearchParams(tokenCalls[0]!.body).get('audience')).toBe('service-external-api');
    const apiCalls = calls.filter((c) => c.url === wallet);
    expect(apiCalls.map((c) => c.headers.authorization)).toEqual([`Bearer ${CANARY_TOKEN}`, `Bearer ${CANARY_TOKEN}`]);
  });

  it('refused credentials give CREDENTIALS_REFUSED; a closed port gives TOKEN_ENDPOINT_UNREACHABLE', async () => {
    const refusing = await startFakeTarget({ refuseCredentials: true });
    const api = createApiClient(suiteConfigFor(refusing));
    expect((await harnessError(api.token('primary'))).code).toBe('CREDENTIALS_REFUSED');
    await api.close();
    await refusing.close();
    const closed = createApiClient(suiteConfigFor({ baseUrl: refusing.baseUrl, tokenUrl: refusing.tokenUrl }));
    const error = await harnessError(closed.token('primary'));
    expect(error.code).toBe('TOKEN_ENDPOINT_UNREACHABLE');
    await closed.close();
  });
});

describe('token endpoint answers that name the cause', () => {
  async function tokenServer(status: number, body: string): Promise<{ url: string; close: () => Promise<void> }> {
    const server = createServer((_, res) => res.writeHead(status, { 'content-type': 'application/json' }).end(body));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
  }

  it('a refused audience names CONFORMANCE_AUDIENCE, not the client id', async () => {
    const server = await tokenServer(400, '{"error":"invalid_target"}');
    const api = createApiClient(suiteConfigFor({ baseUrl: server.url, tokenUrl: `${server.url}/oauth2/token` }));
    const error = await harnessError(api.token('primary'));
    expect(error.code).toBe('CREDENTIALS_REFUSED');
    expect(error.message).toContain('CONFORMANCE_AUDIENCE');
    expect(error.message).not.toContain('CONFORMANCE_CLIENT_ID');
    await api.close();
    await server.close();
  });

  it('a 500 from the token endpoint says what it answered', async () => {
    const server = await tokenServer(500, '{}');
    const api = createApiClient(suiteConfigFor({ baseUrl: server.url, tokenUrl: `${server.url}/oauth2/token` }));
    const error = await harnessError(api.token('primary'));
    expect(error.message).toContain('answered HTTP 500');
    await api.close();
    await server.close();
  });
});

describe('requests', () => {
  it('sends a run-scoped X-Request-Id unless the request sets or omits it', async () => {
    const api = createApiClient(suiteConfigFor(fake));
    const before = fake.calls.length;
    await api.send({ method: 'GET', path: wallet });
    await api.send({ method: 'GET', path: wallet, headers: { 'X-Request-Id': 'mine-1' } });
    await api.send({ method: 'GET', path: wallet, headers: { 'x-request-id': undefined } });
    await api.close();
    const ids = fake.calls.slice(before).filter((c) => c.url === wallet).map((c) => c.headers['x-request-id']);
    expect(ids[0]).toMatch(/^conf-test-run\d+-[0-9a-f]+-\d+$/);
    expect(ids[0]).toMatch(/^[A-Za-z0-9._-]{1,128}$/);
    expect(ids[1]).toBe('mine-1');
    expect(ids[2]).toBeUndefined();
  });

  it('never sends Authorization to another origin: a path must stay under the base URL', async () => {
    const api = createApiClient(suiteConfigFor(fake));
    for (const path of ['http://127.0.0.2:1/v1/x', 'v1/x']) {
      expect((await harnessError(api.send({ method: 'GET', path }))).code).toBe('SAFETY_REFUSED');
    }
    // A protocol-relative path is appended to the base URL, so it stays on the API origin.
    const res = await api.send({ method: 'GET', path: '//evil.test/v1/x' });
    expect(new URL(res.exchange.request.url).origin).toBe(fake.baseUrl);
    await api.close();
  });

  it('does not follow redirects', async () => {
    const api = createApiClient(suiteConfigFor(fake));
    const res = await api.send({ method: 'GET', path: '/redirect' });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('http://127.0.0.2:9/stolen');
    await api.close();
  });

  it('cuts a response above the size cap and reports a transport error', async () => {
    const api = createApiClient(suiteConfigFor(fake));
    const res = await api.send({ method: 'GET', path: '/huge' });
    expect(res.status).toBe(0);
    expect(res.exchange.transportError).toContain(String(RESPONSE_SIZE_CAP));
    await api.close();
  });

  it('a closed port is a response with status 0 and a transport error, not an exception', async () => {
    const closed = await startFakeTarget();
    const api = createApiClient(suiteConfigFor(fake));
    await api.token('primary');
    await closed.close();
    const other = createApiClient({ ...suiteConfigFor(closed), apps: {} });
    const res = await other.send({ method: 'GET', path: wallet, as: 'none' });
    expect(res.status).toBe(0);
    expect(res.exchange.transportError).toMatch(/ECONNREFUSED/);
    await api.close();
    await other.close();
  });

  it('a hanging server is cut off by the timeout', async () => {
    const server = createServer(() => undefined); // never answers
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const api = createApiClient(suiteConfigFor({ baseUrl: origin, tokenUrl: `${origin}/t` }, { settings: { timeoutMs: 300 } }));
    const started = Date.now();
    const res = await api.send({ method: 'GET', path: '/v1/x', as: 'none' });
    expect(res.status).toBe(0);
    expect(Date.now() - started).toBeLessThan(3000);
    await api.close();
    server.closeAllConnections();
    server.close();
  });

  it('waits out 429s as the host paces (Retry-After), as often as needed, without spending the budget; seePacing returns the 429', async () => {
    const api = createApiClient(suiteConfigFor(fake, { settings: { maxRequests: 10 } }));
    await api.token('primary');
    const before = api.requestCount;
    fake.throttle(3, '1');
    const started = Date.now();
    const paced = await api.send({ method: 'GET', path: wallet });
    expect(paced.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
    // Three answers were pacing: one request of the check, not four.
    expect(api.requestCount - before).toBe(1);

    fake.throttle(1, '30');
    const direct = await api.send({ method: 'GET', path: wallet, seePacing: true });
    expect(direct.status).toBe(429);
    // A 429 a check provoked on purpose does not hold back the next request.
    const next = Date.now();
    expect((await api.send({ method: 'GET', path: wallet })).status).toBe(200);
    expect(Date.now() - next).toBeLessThan(1000);
    fake.throttle(0, '0');
    await api.close();
  }, 20_000);

  it('a pace the run cannot wait out is an error of the run (TARGET_PACING), never an answer', async () => {
    const api = createApiClient(suiteConfigFor(fake));
    await api.token('primary');
    fake.throttle(2, '3600'); // an hour: more than a request may wait
    await expect(api.send({ method: 'GET', path: wallet })).rejects.toMatchObject({ code: 'TARGET_PACING' });
    fake.throttle(0, '0');
    await api.close();
  });

  it('a known rate spaces the requests from the start', async () => {
    const api = createApiClient(suiteConfigFor(fake, { settings: { rate: 10 } }));
    await api.token('primary');
    const started = Date.now();
    await Promise.all(Array.from({ length: 6 }, () => api.send({ method: 'GET', path: wallet })));
    // Six starts at 10/s take at least 0.5 s (the token request took the first slot).
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    await api.close();
  });

  it('learns the pace from RateLimit headers and backs off without a hint', () => {
    expect(exhaustedFor({ 'ratelimit-remaining': '0', 'ratelimit-reset': '3' })).toBe(3000);
    expect(exhaustedFor({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(20 + 1e9) }, 1e12)).toBe(20_000);
    expect(exhaustedFor({ ratelimit: 'limit=10, remaining=0, reset=2' })).toBe(2000);
    expect(exhaustedFor({ ratelimit: '"default";r=0;t=4' })).toBe(4000);
    expect(exhaustedFor({ 'ratelimit-remaining': '5', 'ratelimit-reset': '3' })).toBeUndefined();
    const pacer = new Pacer();
    expect(pacer.observe(200, {}, 0)).toBeUndefined();
    expect(pacer.observe(429, {}, 0)).toBe(250);
    expect(pacer.observe(429, {}, 2)).toBe(1000);
    expect(pacer.observe(503, { 'retry-after': '2' }, 0)).toBe(2000);
    expect(pacer.observe(429, { 'retry-after': '3600' }, 0)).toBe(3_600_000);
  });

  it('holds a request already waiting for its turn when a 429 of another asks for a pause', async () => {
    const pacer = new Pacer(20); // a turn every 50 ms
    const started = Date.now();
    await pacer.turn();
    const queued = pacer.turn(); // its turn 50 ms on
    // A request in flight meets a 429 meanwhile: the host asks for a second's pause.
    expect(pacer.observe(429, { 'retry-after': '1' }, 0, started)).toBe(1000);
    const sentAt = await queued;
    expect(sentAt - started).toBeGreaterThanOrEqual(1000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('gives each waiting turn at the pace in force when it comes, slowed once for what was sent before a 429', async () => {
    // Fake time: the turns' times are exact, whatever the machine's load.
    vi.useFakeTimers();
    try {
      const pacer = new Pacer(20); // a turn every 50 ms
      const first = await pacer.turn();
      const given: number[] = [];
      for (let i = 0; i < 3; i++) void pacer.turn().then((at) => given.push(at - first));
      vi.advanceTimersByTime(10);
      // The first request meets a 429 asking for no pause: the known pace slows by a tenth, to 55 ms.
      // A second 429 of a request sent as early says nothing new and does not slow it again (60.5 ms).
      expect(pacer.observe(429, { 'retry-after': '0' }, 0, first)).toBe(0);
      expect(pacer.observe(429, { 'retry-after': '0' }, 0, first)).toBe(0);
      await vi.advanceTimersByTimeAsync(1000);
      // The turns waiting go out at the slowed pace (booked ahead at 50 ms, they left at 50, 100 and 150).
      expect(given).toEqual([55, 110, 165]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('without a known rate, learns one: 20 a second at the first 429, a tenth slower at each later one', async () => {
    vi.useFakeTimers();
    try {
      const pacer = new Pacer();
      const times = async (n: number) => {
        const given: number[] = [];
        for (let i = 0; i < n; i++) void pacer.turn().then((at) => given.push(at));
        await vi.advanceTimersByTimeAsync(1000);
        return given.slice(1).map((at, i) => at - given[i]!);
      };
      expect(await times(3)).toEqual([0, 0]);
      const sent = Date.now();
      vi.advanceTimersByTime(1);
      pacer.observe(429, { 'retry-after': '0' }, 0, sent);
      expect(await times(3)).toEqual([50, 50]);
      const later = Date.now();
      vi.advanceTimersByTime(1);
      pacer.observe(429, { 'retry-after': '0' }, 0, later);
      expect(await times(3)).toEqual([55, 55]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a known rate above 20 a second slows by a tenth at a 429, one slower than the slowest learned pace is kept', async () => {
    vi.useFakeTimers();
    try {
      for (const [rate, expected] of [[100, 11], [0.2, 5_000]] as const) {
        const pacer = new Pacer(rate);
        const first = await pacer.turn();
        vi.advanceTimersByTime(1);
        pacer.observe(429, { 'retry-after': '0' }, 0, first);
        const next = pacer.turn();
        await vi.advanceTimersByTimeAsync(10_000);
        // 100 a second went to 20 (50 ms) before; 0.2 a second to the slowest learned pace, 2 s: faster than told.
        // Now 11 ms, and 5 s kept (a 429 never makes the pace faster).
        expect((await next) - first).toBeCloseTo(expected, 6);
      }
    } finally {
      vi.useRealTimers();
    }
  });

  it('parses Retry-After as seconds or an HTTP-date', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 5_000)).toBe(5_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(new Date(1_000).toUTCString(), 5_000)).toBe(0);
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });

  it('stops at the request budget with REQUEST_BUDGET_EXHAUSTED', async () => {
    const api = createApiClient(suiteConfigFor(fake, { settings: { maxRequests: 3 } }));
    await api.send({ method: 'GET', path: wallet }); // token + request
    await api.send({ method: 'GET', path: wallet });
    expect(api.requestCount).toBe(3);
    expect((await harnessError(api.send({ method: 'GET', path: wallet }))).code).toBe('REQUEST_BUDGET_EXHAUSTED');
    await api.close();
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const server = createServer((_req, res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      setTimeout(() => {
        inFlight--;
        res.end('{}');
      }, 50);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const api = createApiClient(suiteConfigFor({ baseUrl: origin, tokenUrl: `${origin}/t` }, { settings: { concurrency: 2 } }));
    await Promise.all(Array.from({ length: 8 }, () => api.send({ method: 'GET', path: '/v1/x', as: 'none' })));
    expect(most).toBe(2);
    await api.close();
    server.close();
  });

  it('spaces what is sent at the known rate, also when places in flight free together', async () => {
    // The first two requests of a wave are answered together, 450 ms in: the two waiting for a
    // place must still leave a turn (100 ms) apart; a turn taken before the place let them leave at once.
    const arrivals: number[] = [];
    let answerAt = 0;
    const server = createServer((_req, res) => {
      arrivals.push(Date.now());
      setTimeout(() => res.end('{}'), Math.max(0, answerAt - Date.now()));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const api = createApiClient(suiteConfigFor({ baseUrl: origin, tokenUrl: `${origin}/t` }, { settings: { concurrency: 2, rate: 10 } }));
    const get = () => api.send({ method: 'GET', path: '/v1/x', as: 'none' });
    await get(); // the connection is made before the wave is timed
    answerAt = Date.now() + 450;
    await Promise.all([get(), get(), get(), get()]);
    const [, , , third, fourth] = arrivals;
    // Sent when places freed together, they arrived within a few ms; paced, about 100 ms apart.
    expect(fourth! - third!, `arrivals ${arrivals.map((at) => at - arrivals[0]!).join(', ')} ms`).toBeGreaterThanOrEqual(60);
    await api.close();
    server.close();
  });

  it('gives a freed place to the chain with the fewest in flight, not to the earliest waiting', async () => {
    // The server answers a request only when the test says so: which request takes a freed place is
    // then told by what arrives next, whatever the machine's load.
    const arrived: string[] = [];
    const waiting = new Map<string, () => void>();
    const server = createServer((req, res) => {
      const n = new URL(req.url ?? '/', 'http://x').searchParams.get('n') ?? '';
      arrived.push(n);
      waiting.set(n, () => res.end('{}'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const api = createApiClient(suiteConfigFor({ baseUrl: origin, tokenUrl: `${origin}/t` }, { settings: { concurrency: 2 } }));
    const get = (n: string) => api.send({ method: 'GET', path: '/v1/x', query: { n }, as: 'none' });
    const arrivals = async (count: number) => {
      while (arrived.length < count) await new Promise((resolve) => setTimeout(resolve, 5));
      return arrived.slice(0, count);
    };
    const answer = (n: string) => waiting.get(n)!();
    const queued = () => new Promise((resolve) => setTimeout(resolve, 300)); // every request sent reaches the queue

    // Two places. Check A sends a wave of four, check B one request after it: B's goes out with the
    // first freed place, not after the whole wave (first come, first served would make it fifth).
    const wave = inExchangeScope({ sent: 0 }, () => Promise.all(['a1', 'a2', 'a3', 'a4'].map(get)));
    const one = inExchangeScope({ sent: 0 }, () => get('b1'));
    expect((await arrivals(2)).sort()).toEqual(['a1', 'a2']);
    await queued();
    answer('a1');
    expect((await arrivals(3))[2]).toBe('b1');
    answer('a2');
    expect((await arrivals(4))[3]).toBe('a3');
    answer('b1');
    expect((await arrivals(5))[4]).toBe('a4');
    answer('a3');
    answer('a4');
    await Promise.all([wave, one]);

    // Within one check, its requests go out in the order they were sent.
    arrived.length = 0;
    const mine = inExchangeScope({ sent: 0 }, () => Promise.all([Promise.all(['x1', 'x2', 'x3'].map(get)), get('y1')]));
    expect((await arrivals(2)).sort()).toEqual(['x1', 'x2']);
    await queued();
    answer('x1');
    expect((await arrivals(3))[2]).toBe('x3');
    answer('x2');
    expect((await arrivals(4))[3]).toBe('y1');
    answer('x3');
    answer('y1');
    await mine;
    await api.close();
    server.close();
  });

  it('appends every exchange to the exchange log, with a replayable curl line', async () => {
    const config = suiteConfigFor(fake);
    const api = createApiClient(config);
    await api.send({ method: 'POST', path: `/v1/businesses/${BUSINESS_ID}/sms/bulk-messages`, json: { recipients: [{ to: '+4915112345678' }] } });
    await api.close();
    const log = readAllExchanges(config.settings.exchangeLogPath);
    expect(log.map((x) => `${x.request.method} ${new URL(x.request.url).pathname}`)).toEqual([
      'POST /oauth2/token',
      `POST /v1/businesses/${BUSINESS_ID}/sms/bulk-messages`,
    ]);
    expect(log[1]!.curl).toContain('"Authorization: Bearer $TOKEN"');
    expect(log[1]!.curl).toContain(`--data-raw '{"recipients":[{"to":"+4915112345678"}]}'`);
  });

  it("holds a check's lines in the order its requests were sent, not answered, a waited-out 429 with its request", async () => {
    const api = createApiClient(suiteConfigFor(fake));
    await api.token('primary');
    const scope: ExchangeScope = { sent: 0, held: [] };
    // The next answer is a 429: the fast request's, since the first one is answered 150 ms late.
    fake.throttle(1, '0');
    await inExchangeScope(scope, () =>
      Promise.all([
        api.send({ method: 'GET', path: wallet, query: { n: 'first', delay: '150' } }),
        api.send({ method: 'GET', path: wallet, query: { n: 'second' } }),
      ]),
    );
    await api.close();
    const held = scope.held!.join('').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Exchange);
    expect(held.map((x) => `${new URL(x.request.url).searchParams.get('n')} ${x.response?.status}`)).toEqual(['first 200', 'second 429', 'second 200']);
    expect(scope.sent).toBe(2);
  });

  it('a check that ended at its timeout sends nothing more: the request is refused before it is counted or sent', async () => {
    const api = createApiClient(suiteConfigFor(fake));
    const scope: ExchangeScope = { sent: 0, held: [], ended: 'the check ended at its timeout of 50 ms' };
    const before = fake.calls.length;
    await expect(inExchangeScope(scope, () => api.send({ method: 'GET', path: wallet }))).rejects.toThrow(/ended at its timeout of 50 ms; it sends nothing more/);
    await api.close();
    expect(fake.calls.length).toBe(before);
    expect(scope.sent).toBe(0);
    expect(scope.held).toEqual([]);
  });

  it('idempotency keys carry the run id and never repeat', () => {
    const a = createApiClient(suiteConfigFor(fake));
    const b = createApiClient(suiteConfigFor(fake));
    const keys = [a.idempotencyKey(), a.idempotencyKey('replay'), b.idempotencyKey(), b.idempotencyKey('replay')];
    for (const key of keys) expect(key).toContain('conf-test-run');
    expect(new Set(keys).size).toBe(4);
    expect(keys[1]).toContain('replay');
    void a.close();
    void b.close();
  });
});
