// The transport under the API client: keep-alive undici connections (through the environment's
// proxy when one is named), a bound on requests in flight, the response size cap, and the host's
// pace (harness/pacing.ts). Knows nothing of tokens, rails or evidence.
// undici is loaded at the first request, not at import: `plan` loads the suites (and so this
// module) to read their declarations, and undici is a third of that import's time.
import type { Dispatcher } from 'undici';
import { HarnessError } from './errors.ts';
import { currentExchangeScope } from './exchange-log.ts';
import { PACING_BOUND_MS, pacerFor } from './pacing.ts';

/** Responses larger than this are cut off and reported as a transport error. */
export const RESPONSE_SIZE_CAP = 2 * 1024 * 1024;

/** One answer as it came, or the transport failure in its place. */
export interface RawResult {
  status: number;
  headers: Record<string, string>;
  text: string;
  transportError?: string;
  /** How long until the answer was read whole (ms, to the microsecond). */
  durationMs: number;
  /** When the request was sent: epoch milliseconds, to the microsecond (the traffic judge tells overlapping calls by it). */
  sentAt?: number;
}

export interface Outgoing {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/**
 * At most `limit` requests in flight, shared fairly among the checks that overlap (their exchange
 * scopes): a freed place goes to the waiting request whose check has the fewest in flight, the
 * earliest first among equals. A check that sends one request after another (the sequences, a
 * hundred steps) then waits for no wave of ten another check sent before it, so the longest chains
 * no longer end last; within one check the order of its requests is kept.
 */
class FairSemaphore {
  private active = 0;
  private readonly waiting: Array<{ owner: object | undefined; go: () => void }> = [];
  private readonly activeBy = new Map<object | undefined, number>();
  constructor(private readonly limit: number) {}

  async run<T>(owner: object | undefined, fn: () => Promise<T>): Promise<T> {
    // A place is counted when it is given, so that places freed together go to different checks.
    if (this.active >= this.limit) await new Promise<void>((go) => this.waiting.push({ owner, go }));
    else this.take(owner);
    try {
      return await fn();
    } finally {
      this.active--;
      const left = this.activeBy.get(owner)! - 1;
      if (left === 0) this.activeBy.delete(owner);
      else this.activeBy.set(owner, left);
      this.giveNext();
    }
  }

  private take(owner: object | undefined): void {
    this.active++;
    this.activeBy.set(owner, (this.activeBy.get(owner) ?? 0) + 1);
  }

  private giveNext(): void {
    const load = (i: number) => this.activeBy.get(this.waiting[i]!.owner) ?? 0;
    let best = -1;
    for (let i = 0; i < this.waiting.length; i++) if (best < 0 || load(i) < load(best)) best = i;
    if (best < 0) return;
    const [next] = this.waiting.splice(best, 1);
    this.take(next!.owner);
    next!.go();
  }
}

function lowerCaseHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function describeTransportError(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; code?: unknown; message?: string; cause?: { name?: string; code?: unknown; message?: string } };
  if (e.name === 'TimeoutError' || e.cause?.name === 'TimeoutError') return `no answer within ${timeoutMs} ms (CONFORMANCE_TIMEOUT_MS)`;
  // String codes only (ECONNREFUSED, UND_ERR_…): a DOMException's numeric code says nothing to a user.
  const code = [e.code, e.cause?.code].find((c): c is string => typeof c === 'string');
  const message = e.cause?.message ?? e.message ?? String(error);
  return code ? `${code}: ${message}` : message;
}

const microseconds = (ms: number) => Math.round(ms * 1000) / 1000;

/** Whether the environment names a proxy (HTTPS_PROXY, HTTP_PROXY, either case). */
export function proxyConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'].some((name) => Boolean(env[name]?.trim()));
}

/**
 * Keep-alive connections; through the proxy of HTTPS_PROXY / HTTP_PROXY (NO_PROXY honoured) when the
 * environment names one, as CI runners behind a corporate proxy do. A custom CA comes through
 * NODE_EXTRA_CA_CERTS, which Node reads itself.
 */
async function dispatcherFor(timeoutMs: number, mayProxy: boolean): Promise<{ agent: Dispatcher; request: typeof import('undici').request }> {
  const { Agent, EnvHttpProxyAgent, request } = await import('undici');
  const options = { keepAliveTimeout: 10_000, connect: { timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs };
  // http targets go through the proxy as plain forwarded requests (many proxies allow CONNECT to
  // port 443 only); https targets through a CONNECT tunnel.
  const agent = mayProxy && proxyConfigured() ? new EnvHttpProxyAgent({ ...options, proxyTunnel: false }) : new Agent(options);
  return { agent, request };
}

/** Credentials in a proxy URL (http://user:password@proxy:3128) are secrets like any other. */
export function proxyCredentials(env: NodeJS.ProcessEnv = process.env): string[] {
  const found: string[] = [];
  for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy']) {
    try {
      const url = new URL(env[name] ?? '');
      if (url.password) found.push(decodeURIComponent(url.password), url.password);
      if (url.username && url.password) found.push(`${url.username}:${url.password}`);
    } catch {
      // Not a URL: undici refuses it when the first request sets up the connections.
    }
  }
  return found;
}

export interface TransportSettings {
  runId: string;
  timeoutMs: number;
  concurrency: number;
  /** A known rate limit of the target (CONFORMANCE_RATE). */
  rate?: number;
  /** Whether the environment's proxy may carry the requests (not to the embedded reference on loopback). */
  mayProxy: boolean;
}

export interface Transport {
  /**
   * Sends at the host's pace: each 429 or 503 goes to `onPaced` (the caller records it), is waited
   * out (Retry-After, RateLimit headers, else a growing backoff) and the request sent again, up to
   * PACING_BOUND_MS. `seePacing` returns the first answer as it is.
   */
  send(out: Outgoing, options: { seePacing: boolean; onPaced: (raw: RawResult) => void; describe: (out: Outgoing) => string }): Promise<RawResult>;
  close(): Promise<void>;
}

export function createTransport(settings: TransportSettings): Transport {
  let dispatcher: ReturnType<typeof dispatcherFor> | undefined;
  /** The connections, set up at the first request; a setup that fails (a proxy URL undici refuses) is the configuration's error, not the target's. */
  async function connections(): Promise<Awaited<ReturnType<typeof dispatcherFor>>> {
    dispatcher ??= dispatcherFor(settings.timeoutMs, settings.mayProxy);
    try {
      return await dispatcher;
    } catch (error) {
      throw new HarnessError('CONF_INVALID_VALUE', `the HTTP client could not be set up (HTTPS_PROXY / HTTP_PROXY?): ${(error as Error).message}`);
    }
  }
  const semaphore = new FairSemaphore(Math.max(1, settings.concurrency));

  async function perform(out: Outgoing): Promise<RawResult> {
    const { agent, request } = await connections();
    const started = performance.now();
    const sentAt = microseconds(performance.timeOrigin + started);
    // When it was sent and how long it took, to the microsecond: concurrent calls on loopback start
    // and end within the same millisecond, and the traffic judge orders them by these times.
    const timing = () => ({ sentAt, durationMs: microseconds(performance.now() - started) });
    // A plain timer rather than AbortSignal.timeout, which cost about 25 times more per request
    // (bench/client-throughput.ts); the abort reason is the same TimeoutError.
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
      settings.timeoutMs,
    );
    try {
      const response = await request(out.url, {
        dispatcher: agent,
        method: out.method as never,
        headers: out.headers,
        body: out.body,
        headersTimeout: settings.timeoutMs,
        bodyTimeout: settings.timeoutMs,
        signal: controller.signal,
      });
      // A declared length within the cap: read whole (undici holds the server to it), which is
      // cheaper than iterating chunks; otherwise count the bytes as they come.
      const declared = Number(response.headers['content-length'] ?? Number.NaN);
      if (Number.isInteger(declared) && declared >= 0 && declared <= RESPONSE_SIZE_CAP) {
        const text = await response.body.text();
        return { status: response.statusCode, headers: lowerCaseHeaders(response.headers), text, ...timing() };
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length;
        if (size > RESPONSE_SIZE_CAP) {
          response.body.destroy();
          return {
            status: 0,
            headers: lowerCaseHeaders(response.headers),
            text: '',
            transportError: `response larger than ${RESPONSE_SIZE_CAP} bytes (HTTP ${response.statusCode}); cut off`,
            ...timing(),
          };
        }
        chunks.push(chunk as Buffer);
      }
      return {
        status: response.statusCode,
        headers: lowerCaseHeaders(response.headers),
        text: Buffer.concat(chunks).toString('utf8'),
        ...timing(),
      };
    } catch (error) {
      return { status: 0, headers: {}, text: '', transportError: describeTransportError(error, settings.timeoutMs), ...timing() };
    } finally {
      clearTimeout(timer);
    }
  }

  async function send(out: Outgoing, options: { seePacing: boolean; onPaced: (raw: RawResult) => void; describe: (out: Outgoing) => string }): Promise<RawResult> {
    const pacer = pacerFor(settings.runId, new URL(out.url).origin, settings.rate);
    let waited = 0;
    for (let attempt = 0; ; attempt++) {
      // The turn is taken with a place in flight, so the pace is the pace of what is sent: a turn
      // taken before waiting for a place let the waiting ones leave together when places freed.
      let sentAt = 0;
      const raw = await semaphore.run(currentExchangeScope(), async () => {
        sentAt = await pacer.turn();
        return perform(out);
      });
      // An answer a check provoked on purpose (a forced fault) says nothing of the host's pace.
      if (options.seePacing || raw.transportError !== undefined) return raw;
      const wait = pacer.observe(raw.status, raw.headers, attempt, sentAt);
      if (wait === undefined) return raw;
      options.onPaced(raw);
      if (waited + wait > PACING_BOUND_MS) {
        throw new HarnessError(
          'TARGET_PACING',
          `${options.describe(out)} was answered ${raw.status} for ${Math.round((waited + wait) / 1000)} s ` +
            `(the host's rate limit or unavailability); the check could not be made. Set CONFORMANCE_RATE to the target's rate limit, or run again later`,
        );
      }
      waited += wait;
    }
  }

  // A setup that failed has nothing to close (its error was the requests' to report).
  return { send, close: async () => (dispatcher ? dispatcher.then(({ agent }) => agent.close(), () => undefined) : undefined) };
}
