// The HTTP client the suites use (interface: harness/client.ts): the safety rails before any byte
// leaves, authorization from the token cache, run-scoped request ids and keys, the run's request
// budget. Sending is harness/transport.ts's, evidence harness/exchange-record.ts's.
import { randomBytes } from 'node:crypto';
import type { ApiClient, ApiRequest, ApiResponse, AppName, Caller, TokenRequest } from './client.ts';
import { HarnessError } from './errors.ts';
import { countExchanges, currentExchangeScope, reserveExchangeSlot, type ExchangeSlot } from './exchange-log.ts';
import { createRecorder } from './exchange-record.ts';
import { recordObtainedToken } from './token-log.ts';
import type { AppCredentials, Exchange, SuiteConfig } from '../core/model.ts';
import { SecretSet, redactText } from './redact.ts';
import { assertRequestAllowed, makeIdempotencyKey } from './safety.ts';
import { createTokenCache, type ObtainedToken } from './token-cache.ts';
import { tokenFromAnswer } from './token-answer.ts';
import { createTransport, proxyCredentials, type Outgoing, type RawResult } from './transport.ts';

export { RESPONSE_SIZE_CAP, proxyConfigured, proxyCredentials } from './transport.ts';

export interface HttpApiClient extends ApiClient {
  /** Closes the keep-alive connections. */
  close(): Promise<void>;
  /** Redacts every secret and token this client knows of. */
  redact(text: string): string;
}

/** RFC 6749 2.3.1: client id and secret are form-encoded before the Basic encoding. */
export function basicCredentials(app: AppCredentials): string {
  const form = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return Buffer.from(`${form(app.clientId)}:${form(app.clientSecret)}`).toString('base64');
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

export function createApiClient(config: SuiteConfig): HttpApiClient {
  const { settings, target } = config;
  const baseUrl = target.baseUrl.replace(/\/+$/, '');
  const baseOrigin = new URL(baseUrl).origin;
  const tokenOrigin = new URL(target.tokenUrl).origin;
  const secrets = new SecretSet([...config.secrets, ...proxyCredentials()]);
  for (const app of [config.apps.primary, config.apps.limited, config.apps.other]) {
    if (!app) continue;
    secrets.add(app.clientSecret);
    secrets.add(basicCredentials(app));
  }
  // The embedded reference listens on this machine's loopback: a proxy could never reach it.
  const transport = createTransport({ ...settings, mayProxy: !target.embedded });
  const { record } = createRecorder(secrets, settings.exchangeLogPath);
  // Distinguishes the clients of one run (one per suite worker) in request ids and idempotency keys.
  const clientTag = randomBytes(3).toString('hex');
  // The budget is run-wide: one worker runs every topic with one client; a worker that starts
  // later (a test of the checker's own) starts from the log so far.
  const budgetBase = countExchanges(settings.exchangeLogPath);
  let sent = 0;
  let requestCounter = 0;
  let keyCounter = 0;

  const redact = (text: string) => redactText(text, secrets);

  /** Counts a request about to be sent and takes its place among its check's held lines (if held). */
  function takeBudget(): ExchangeSlot | undefined {
    if (budgetBase + sent >= settings.maxRequests) {
      throw new HarnessError(
        'REQUEST_BUDGET_EXHAUSTED',
        `the run reached its request budget of ${settings.maxRequests} (CONFORMANCE_MAX_REQUESTS)`,
      );
    }
    // The check that sends it (checks may overlap: the client-wide count is the run's, not a check's).
    const scope = currentExchangeScope();
    if (scope?.ended) throw new Error(`${scope.ended}; it sends nothing more`);
    sent++;
    if (scope) scope.sent++;
    return reserveExchangeSlot();
  }

  /** Remembers every token a token endpoint hands out, so it is redacted wherever it shows up. */
  function learnTokens(json: unknown): void {
    if (!json || typeof json !== 'object') return;
    for (const key of ['access_token', 'refresh_token', 'id_token']) {
      const value = (json as Record<string, unknown>)[key];
      if (typeof value === 'string') {
        secrets.add(value);
        // The runner scans the reports for it before writing them (harness/token-log.ts).
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
    const slot = takeBudget();
    const raw = await paced(out, false, slot);
    const json = parseJson(raw.text);
    learnTokens(json);
    return { raw, json, exchange: record(out, raw, slot) };
  }

  /** Each pacing answer recorded as evidence, then sent again (harness/transport.ts). */
  const paced = (out: Outgoing, seePacing: boolean, slot: ExchangeSlot | undefined) =>
    transport.send(out, { seePacing, onPaced: (raw) => void record(out, raw, slot), describe: (o) => `${o.method} ${redact(new URL(o.url).pathname)}` });

  async function fetchToken(app: AppName): Promise<ObtainedToken> {
    const credentials = config.apps[app];
    const idVariable = { primary: 'CONFORMANCE_CLIENT_ID', limited: 'CONFORMANCE_LIMITED_CLIENT_ID', other: 'CONFORMANCE_OTHER_CLIENT_ID' }[app];
    if (!credentials) {
      throw new HarnessError('CONF_MISSING_VARIABLE', `no credentials for the ${app} application (${idVariable})`);
    }
    const { raw, json } = await callTokenEndpoint(`Basic ${basicCredentials(credentials)}`, {
      grant_type: 'client_credentials',
      audience: target.audience,
    });
    return tokenFromAnswer(raw, json, { app, idVariable, tokenUrl: target.tokenUrl, audience: target.audience, redact });
  }
  const token = createTokenCache(fetchToken);

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
    if (caller === 'primary' || caller === 'limited' || caller === 'other') return `Bearer ${await token(caller)}`;
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
      sandbox: settings.sandbox === true,
      ...(config.fixtures.foreignWebhookEndpointId ? { foreignWebhookEndpointId: config.fixtures.foreignWebhookEndpointId } : {}),
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

    const slot = takeBudget();
    const raw = await paced(out, request.seePacing === true, slot);
    const exchange = record(out, raw, slot);
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
    close: () => transport.close(),
  };
}
