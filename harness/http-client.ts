// The HTTP client the suites use (interface: harness/client.ts). undici with keep-alive; every
// request passes the safety rails first, every exchange is redacted, kept as evidence and appended
// to the run's exchange log.
import { randomBytes } from 'node:crypto';
import { Agent, EnvHttpProxyAgent, request as undiciRequest } from 'undici';
import type { Dispatcher } from 'undici';
import type { ApiClient, ApiRequest, ApiResponse, Caller, TokenRequest } from './client.ts';
import { HarnessError } from './errors.ts';
import { appendExchange, countExchanges } from './exchange-log.ts';
import { recordObtainedToken } from './gating/token-log.ts';
import type { AppCredentials, Exchange, SuiteConfig } from './model.ts';
import { REDACTED, SecretSet, redactBody, redactHeaders, redactText } from './redact.ts';
import { assertRequestAllowed, makeIdempotencyKey } from './safety.ts';

/** Responses larger than this are cut off and reported as a transport error. */
export const RESPONSE_SIZE_CAP = 2 * 1024 * 1024;
/** Longest wait a Retry-After may impose before the single retry. */
export const RETRY_AFTER_CAP_MS = 5_000;
/** A cached token is renewed this long before it expires. */
const TOKEN_RENEW_MARGIN_MS = 30_000;
/** Lifetime assumed when the token response states none (its shape is not in the document). */
const DEFAULT_TOKEN_LIFETIME_S = 300;
/** Bodies in curl lines are kept longer than evidence bodies, so a replay stays whole more often. */
const CURL_BODY_LIMIT = 16 * 1024;

export interface HttpApiClient extends ApiClient {
  /** Closes the keep-alive connections. */
  close(): Promise<void>;
  /** Redacts every secret and token this client knows of. */
  redact(text: string): string;
}

interface RawResult {
  status: number;
  headers: Record<string, string>;
  text: string;
  transportError?: string;
  durationMs: number;
}

interface Outgoing {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(private readonly limit: number) {}
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

/** RFC 6749 2.3.1: client id and secret are form-encoded before the Basic encoding. */
export function basicCredentials(app: AppCredentials): string {
  const form = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return Buffer.from(`${form(app.clientId)}:${form(app.clientSecret)}`).toString('base64');
}

/** Seconds or an HTTP-date (RFC 9110); undefined when neither. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function lowerCaseHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function findHeader(headers: Record<string, string | undefined> | undefined, name: string): [boolean, string | undefined] {
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (key.toLowerCase() === name) return [true, value];
  }
  return [false, undefined];
}

function parseJson(text: string): unknown {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describeTransportError(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; code?: unknown; message?: string; cause?: { name?: string; code?: unknown; message?: string } };
  if (e.name === 'TimeoutError' || e.cause?.name === 'TimeoutError') return `no answer within ${timeoutMs} ms (CONFORMANCE_TIMEOUT_MS)`;
  // String codes only (ECONNREFUSED, UND_ERR_…): a DOMException's numeric code says nothing to a user.
  const code = [e.code, e.cause?.code].find((c): c is string => typeof c === 'string');
  const message = e.cause?.message ?? e.message ?? String(error);
  return code ? `${code}: ${message}` : message;
}

/** Whether the environment names a proxy (HTTPS_PROXY, HTTP_PROXY, either case). */
export function proxyConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'].some((name) => Boolean(env[name]?.trim()));
}

/**
 * Keep-alive connections; through the proxy of HTTPS_PROXY / HTTP_PROXY (NO_PROXY honoured) when the
 * environment names one, as CI runners behind a corporate proxy do. A custom CA comes through
 * NODE_EXTRA_CA_CERTS, which Node reads itself.
 */
function dispatcherFor(timeoutMs: number, mayProxy: boolean): Dispatcher {
  const options = { keepAliveTimeout: 10_000, connect: { timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs };
  // http targets go through the proxy as plain forwarded requests (many proxies allow CONNECT to
  // port 443 only); https targets through a CONNECT tunnel.
  return mayProxy && proxyConfigured() ? new EnvHttpProxyAgent({ ...options, proxyTunnel: false }) : new Agent(options);
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
      // Not a URL: undici refuses it when the client is created.
    }
  }
  return found;
}

export function createApiClient(config: SuiteConfig): HttpApiClient {
  const { settings, target } = config;
  const baseUrl = target.baseUrl.replace(/\/+$/, '');
  const baseOrigin = new URL(baseUrl).origin;
  const tokenOrigin = new URL(target.tokenUrl).origin;
  const secrets = new SecretSet([...config.secrets, ...proxyCredentials()]);
  for (const app of [config.apps.primary, config.apps.limited]) {
    if (!app) continue;
    secrets.add(app.clientSecret);
    secrets.add(basicCredentials(app));
  }
  // The embedded reference listens on this machine's loopback: a proxy could never reach it.
  const agent = dispatcherFor(settings.timeoutMs, !target.embedded);
  const semaphore = new Semaphore(Math.max(1, settings.concurrency));
  // Distinguishes the clients of one run (one per suite worker) in request ids and idempotency keys.
  const clientTag = randomBytes(3).toString('hex');
  // The budget is run-wide: files run one after another, each worker starts from the log so far.
  const budgetBase = countExchanges(settings.exchangeLogPath);
  let sent = 0;
  let requestCounter = 0;
  let keyCounter = 0;
  const tokens = new Map<'primary' | 'limited', { token: string; renewAt: number }>();
  const pendingTokens = new Map<'primary' | 'limited', Promise<string>>();

  const redact = (text: string) => redactText(text, secrets);

  function takeBudget(): void {
    if (budgetBase + sent >= settings.maxRequests) {
      throw new HarnessError(
        'REQUEST_BUDGET_EXHAUSTED',
        `the run reached its request budget of ${settings.maxRequests} (CONFORMANCE_MAX_REQUESTS)`,
      );
    }
    sent++;
  }

  async function perform(out: Outgoing): Promise<RawResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    // A plain timer rather than AbortSignal.timeout, which cost about 25 times more per request
    // (bench/client-throughput.ts); the abort reason is the same TimeoutError.
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
      settings.timeoutMs,
    );
    try {
      const response = await undiciRequest(out.url, {
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
        return { status: response.statusCode, headers: lowerCaseHeaders(response.headers), text, durationMs: elapsed() };
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
            durationMs: elapsed(),
          };
        }
        chunks.push(chunk as Buffer);
      }
      return {
        status: response.statusCode,
        headers: lowerCaseHeaders(response.headers),
        text: Buffer.concat(chunks).toString('utf8'),
        durationMs: elapsed(),
      };
    } catch (error) {
      return { status: 0, headers: {}, text: '', transportError: describeTransportError(error, settings.timeoutMs), durationMs: elapsed() };
    } finally {
      clearTimeout(timer);
    }
  }

  function curlLine(out: Outgoing): string {
    const parts = ['curl', '-sS', '-i', '-X', out.method, shellQuote(redact(out.url))];
    for (const [name, value] of Object.entries(out.headers)) {
      if (name.toLowerCase() === 'authorization') {
        // Placeholders in double quotes so the shell fills them in on replay.
        if (/^Bearer\s/i.test(value)) parts.push('-H', '"Authorization: Bearer $TOKEN"');
        else if (/^Basic\s/i.test(value)) parts.push('-H', '"Authorization: Basic $BASIC_CREDENTIALS"');
        else parts.push('-H', shellQuote(`Authorization: ${REDACTED}`));
      } else {
        parts.push('-H', shellQuote(`${name}: ${redact(value)}`));
      }
    }
    if (out.body !== undefined) parts.push('--data-raw', shellQuote(redactBody(out.body, secrets, CURL_BODY_LIMIT) ?? ''));
    return parts.join(' ');
  }

  function record(out: Outgoing, raw: RawResult): Exchange {
    const exchange: Exchange = {
      request: {
        method: out.method,
        url: redact(out.url),
        headers: redactHeaders(out.headers, secrets),
        ...(out.body !== undefined ? { body: redactBody(out.body, secrets) } : {}),
      },
      durationMs: raw.durationMs,
      curl: curlLine(out),
    };
    if (raw.transportError !== undefined) exchange.transportError = redact(raw.transportError);
    else exchange.response = { status: raw.status, headers: redactHeaders(raw.headers, secrets), body: redactBody(raw.text, secrets) };
    appendExchange(settings.exchangeLogPath, exchange);
    return exchange;
  }

  /** Remembers every token a token endpoint hands out, so it is redacted wherever it shows up. */
  function learnTokens(json: unknown): void {
    if (!json || typeof json !== 'object') return;
    for (const key of ['access_token', 'refresh_token', 'id_token']) {
      const value = (json as Record<string, unknown>)[key];
      if (typeof value === 'string') {
        secrets.add(value);
        // The runner scans the reports for it before writing them (harness/gating/token-log.ts).
        recordObtainedToken(settings.exchangeLogPath, value);
      }
    }
  }

  async function callTokenEndpoint(authorization: string | undefined, form: Record<string, string>): Promise<{ raw: RawResult; json: unknown; exchange: Exchange }> {
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    if (authorization !== undefined) {
      if (new URL(target.tokenUrl).origin !== tokenOrigin) throw new HarnessError('SAFETY_REFUSED', 'token URL changed origin');
      headers.authorization = authorization;
    }
    const out: Outgoing = { method: 'POST', url: target.tokenUrl, headers, body: new URLSearchParams(form).toString() };
    const raw = await semaphore.run(async () => {
      takeBudget();
      return perform(out);
    });
    const json = parseJson(raw.text);
    learnTokens(json);
    return { raw, json, exchange: record(out, raw) };
  }

  async function fetchToken(app: 'primary' | 'limited'): Promise<string> {
    const credentials = config.apps[app];
    const idVariable = app === 'primary' ? 'CONFORMANCE_CLIENT_ID' : 'CONFORMANCE_LIMITED_CLIENT_ID';
    if (!credentials) {
      throw new HarnessError('CONF_MISSING_VARIABLE', `no credentials for the ${app} application (${idVariable})`);
    }
    const { raw, json } = await callTokenEndpoint(`Basic ${basicCredentials(credentials)}`, {
      grant_type: 'client_credentials',
      audience: target.audience,
    });
    if (raw.transportError !== undefined) {
      throw new HarnessError('TOKEN_ENDPOINT_UNREACHABLE', `token endpoint ${redact(target.tokenUrl)} unreachable: ${redact(raw.transportError)}`);
    }
    const body = (json ?? {}) as { access_token?: unknown; expires_in?: unknown; error?: unknown };
    // A redirect, a 404/405, or a refusal that is no JSON (RFC 6749 5.2 answers JSON) means the URL
    // is not a token endpoint at all: that, not the credentials, is what the user must fix.
    const jsonAnswer = /json/i.test(raw.headers['content-type'] ?? '') && json !== undefined;
    if ((raw.status >= 300 && raw.status < 400) || raw.status === 404 || raw.status === 405 || (raw.status >= 200 && raw.status < 500 && !jsonAnswer)) {
      const type = raw.headers['content-type']?.split(';')[0]?.trim() || 'no content type';
      const answer = raw.status >= 300 && raw.status < 400 ? `a redirect (HTTP ${raw.status})` : `HTTP ${raw.status} ${type}`;
      throw new HarnessError('TARGET_MISCONFIGURED', `CONFORMANCE_TOKEN_URL ${redact(target.tokenUrl)} is probably not a token endpoint: it answered ${answer} to a client-credentials request`);
    }
    if (raw.status === 400 || raw.status === 401 || raw.status === 403) {
      const why = typeof body.error === 'string' ? ` (${redact(body.error)})` : '';
      // RFC 8707 / 6749: the audience (resource) asked for, not the client, was refused.
      const refused = body.error === 'invalid_target' || body.error === 'invalid_scope' ? `the audience ${JSON.stringify(target.audience)} (CONFORMANCE_AUDIENCE)` : `the ${app} application's credentials (${idVariable})`;
      throw new HarnessError('CREDENTIALS_REFUSED', `the token endpoint refused ${refused}: HTTP ${raw.status}${why}`);
    }
    if (raw.status < 200 || raw.status >= 300 || typeof body.access_token !== 'string' || !body.access_token) {
      // It answered, so it is reachable: say what it answered.
      const answer = raw.status < 200 || raw.status >= 300 ? `answered HTTP ${raw.status}` : 'answered 200 without an access_token in a JSON body';
      throw new HarnessError('TOKEN_ENDPOINT_UNREACHABLE', `token endpoint ${redact(target.tokenUrl)} ${answer}: no access token could be obtained`);
    }
    const lifetimeS = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : DEFAULT_TOKEN_LIFETIME_S;
    tokens.set(app, { token: body.access_token, renewAt: Date.now() + lifetimeS * 1000 - TOKEN_RENEW_MARGIN_MS });
    return body.access_token;
  }

  async function token(app: 'primary' | 'limited'): Promise<string> {
    const cached = tokens.get(app);
    if (cached && Date.now() < cached.renewAt) return cached.token;
    let pending = pendingTokens.get(app);
    if (!pending) {
      pending = fetchToken(app).finally(() => pendingTokens.delete(app));
      pendingTokens.set(app, pending);
    }
    return pending;
  }

  /**
   * A credential a suite built itself (tampered or minted token) is redacted too, but only when it
   * is long enough to be real: redacting a short test value like `null` would corrupt evidence.
   */
  function learnCredential(authorization: string): void {
    const credential = /^\s*\S+\s+(\S.*)$/.exec(authorization)?.[1] ?? authorization;
    if (credential.length >= 16) {
      secrets.add(credential);
      recordObtainedToken(settings.exchangeLogPath, credential);
    }
  }

  async function authorizationFor(caller: Caller): Promise<string | undefined> {
    if (caller === 'none') return undefined;
    if (caller === 'primary' || caller === 'limited') return `Bearer ${await token(caller)}`;
    if ('bearer' in caller) {
      learnCredential(`Bearer ${caller.bearer}`);
      return `Bearer ${caller.bearer}`;
    }
    learnCredential(caller.authorization);
    return caller.authorization;
  }

  function buildUrl(request: ApiRequest): string {
    if (!request.path.startsWith('/')) {
      throw new HarnessError('SAFETY_REFUSED', `request path must start with "/" (got ${JSON.stringify(redact(request.path))})`);
    }
    const query = request.query === undefined ? '' : new URLSearchParams(request.query as never).toString();
    const url = `${baseUrl}${request.path}${query ? (request.path.includes('?') ? '&' : '?') + query : ''}`;
    if (new URL(url).origin !== baseOrigin) throw new HarnessError('SAFETY_REFUSED', `request left the API origin ${baseOrigin}`);
    return url;
  }

  async function send(request: ApiRequest): Promise<ApiResponse> {
    assertRequestAllowed(request, {
      profile: settings.profile,
      embedded: target.embedded,
      webhookEndpointId: config.fixtures.webhookEndpointId,
      recipients: config.fixtures.recipients,
    });
    const url = buildUrl(request);
    const headers: Record<string, string> = {};
    const [hasAuthHeader] = findHeader(request.headers, 'authorization');
    if (!hasAuthHeader) {
      const authorization = await authorizationFor(request.as ?? 'primary');
      // Authorization only ever goes to the API origin (buildUrl guarantees it) or the token URL.
      if (authorization !== undefined) headers.authorization = authorization;
    }
    const [hasRequestId] = findHeader(request.headers, 'x-request-id');
    if (!hasRequestId) headers['x-request-id'] = `${settings.runId}-${clientTag}-${++requestCounter}`;
    if (!findHeader(request.headers, 'accept')[0]) headers.accept = 'application/json, application/problem+json';
    let body: string | undefined;
    if (request.rawBody !== undefined) body = request.rawBody;
    else if (request.json !== undefined) {
      body = JSON.stringify(request.json);
      if (!findHeader(request.headers, 'content-type')[0]) headers['content-type'] = 'application/json';
    }
    // --header: what a gateway in front of the API needs; to the API origin only, never the token URL.
    for (const [name, value] of Object.entries(settings.extraHeaders ?? {})) headers[name] = value;
    // Explicit headers win; a header given as undefined is not sent at all.
    for (const [name, value] of Object.entries(request.headers ?? {})) {
      if (value !== undefined) headers[name] = value;
      if (name.toLowerCase() === 'authorization' && value !== undefined) learnCredential(value);
    }
    const out: Outgoing = { method: request.method, url, headers, ...(body !== undefined ? { body } : {}) };

    let raw = await semaphore.run(async () => {
      takeBudget();
      return perform(out);
    });
    if ((raw.status === 429 || raw.status === 503) && !request.noRetry) {
      const wait = parseRetryAfter(raw.headers['retry-after']);
      if (wait !== undefined) {
        record(out, raw);
        await new Promise((resolve) => setTimeout(resolve, Math.min(wait, RETRY_AFTER_CAP_MS)));
        raw = await semaphore.run(async () => {
          takeBudget();
          return perform(out);
        });
      }
    }
    const exchange = record(out, raw);
    return { status: raw.status, headers: raw.headers, text: raw.text, json: parseJson(raw.text), exchange };
  }

  async function tokenEndpoint(request: TokenRequest): Promise<ApiResponse> {
    const { raw, json, exchange } = await callTokenEndpoint(request.authorization, request.form);
    return { status: raw.status, headers: raw.headers, text: raw.text, json, exchange };
  }

  return {
    send,
    token,
    tokenEndpoint,
    idempotencyKey: (label?: string) => makeIdempotencyKey(settings.runId, clientTag, ++keyCounter, label),
    get requestCount() {
      return sent;
    },
    redact,
    close: () => agent.close(),
  };
}
