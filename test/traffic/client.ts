// A second, independent client of the API, written only for these tests: plain fetch, its own
// choices (its own request ids and keys, page size 2, polling every 150 ms), no code of the
// checker's client. It records every exchange as a HAR 1.2 entry, as a browser or a proxy would.
import { randomUUID } from 'node:crypto';
import type { RunningReference } from '../../reference/index.ts';

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: { method: string; url: string; httpVersion: string; headers: Array<{ name: string; value: string }>; queryString: []; cookies: []; headersSize: number; bodySize: number; postData?: { mimeType: string; text: string } };
  response: { status: number; statusText: string; httpVersion: string; headers: Array<{ name: string; value: string }>; cookies: []; content: { size: number; mimeType: string; text: string }; redirectURL: string; headersSize: number; bodySize: number };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
}

export interface Har {
  log: { version: '1.2'; creator: { name: string; version: string }; entries: HarEntry[] };
}

export function emptyHar(): Har {
  return { log: { version: '1.2', creator: { name: 'traffic-test-client', version: '1' }, entries: [] } };
}

export class RecordingClient {
  readonly har = emptyHar();
  /** Base URL requests go to (the reference, or a proxy in front of it). */
  constructor(private readonly base: string) {}

  async send(method: string, url: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; headers: Headers; json: any }> {
    const started = new Date();
    const response = await fetch(url, { method, headers, ...(body !== undefined ? { body } : {}), redirect: 'manual' });
    const text = await response.text();
    const entry: HarEntry = {
      startedDateTime: started.toISOString(),
      time: Date.now() - started.getTime(),
      request: {
        method,
        url,
        httpVersion: 'HTTP/1.1',
        headers: Object.entries(headers).map(([name, value]) => ({ name, value })),
        queryString: [],
        cookies: [],
        headersSize: -1,
        bodySize: body?.length ?? 0,
        ...(body !== undefined ? { postData: { mimeType: headers['content-type'] ?? 'application/octet-stream', text: body } } : {}),
      },
      response: {
        status: response.status,
        statusText: response.statusText,
        httpVersion: 'HTTP/1.1',
        headers: [...response.headers].map(([name, value]) => ({ name, value })),
        cookies: [],
        content: { size: text.length, mimeType: response.headers.get('content-type') ?? '', text },
        redirectURL: '',
        headersSize: -1,
        bodySize: text.length,
      },
      cache: {},
      timings: { send: 0, wait: 0, receive: 0 },
    };
    this.har.log.entries.push(entry);
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, json };
  }

  api(path: string): string {
    return `${this.base}/v1${path}`;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A UUIDv7-shaped id that names nothing. */
function unknownId(): string {
  const hex = randomUUID().replace(/-/g, '');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A recording client holding a token of the reference's primary application (the token request recorded first). */
export async function authorisedClient(reference: RunningReference, base = reference.baseUrl): Promise<{ client: RecordingClient; bearer: { authorization: string } }> {
  const client = new RecordingClient(base);
  const { clientId, clientSecret } = reference.apps.primary;
  const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64');
  const token = await client.send('POST', reference.tokenUrl, { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' }, 'grant_type=client_credentials');
  return { client, bearer: { authorization: `Bearer ${token.json.access_token as string}` } };
}

/**
 * One session of the test client: a token, wallet reads, a bulk submitted, replayed and
 * conflicted, read until completed, its rows walked two at a time (and filtered), a second bulk
 * from a template, an individual message, a few refusals the document asks for, a deactivation.
 */
export async function clientSession(reference: RunningReference, base = reference.baseUrl, options: { overLimit?: boolean } = {}): Promise<Har> {
  const { client, bearer } = await authorisedClient(reference, base);
  const f = reference.fixtures;
  const business = f.businessId!;
  const json = { ...bearer, 'content-type': 'application/json' };

  await client.send('GET', client.api(`/businesses/${business}/wallet/balance`), { ...bearer, 'x-request-id': 'tc-wallet-1' });
  await client.send('GET', client.api(`/businesses/${business}/wallet/balance`), bearer);

  const recipients = (f.recipients ?? []).slice(0, 5).map((to) => ({ to }));
  const body = JSON.stringify({ from: f.senderId, classification: 'transactional', message: 'Test client says hello', recipients });
  const key = `tc-${randomUUID()}`;
  const first = await client.send('POST', client.api(`/businesses/${business}/sms/bulk-messages`), { ...json, 'idempotency-key': key, 'x-request-id': 'tc-submit-1' }, body);
  await client.send('POST', client.api(`/businesses/${business}/sms/bulk-messages`), { ...json, 'idempotency-key': key }, body);
  const changed = JSON.stringify({ from: f.senderId, classification: 'promotional', message: 'Test client says hello', recipients });
  await client.send('POST', client.api(`/businesses/${business}/sms/bulk-messages`), { ...json, 'idempotency-key': key }, changed);
  const bulkId = first.json.id as string;

  for (let i = 0; i < 10; i++) {
    const read = await client.send('GET', client.api(`/businesses/${business}/sms/bulk-messages/${bulkId}`), bearer);
    if (read.json?.settled === true) break;
    await sleep(150);
  }

  let page = await client.send('GET', client.api(`/businesses/${business}/sms/bulk-messages/${bulkId}/messages?limit=2`), bearer);
  let firstCursor: string | undefined;
  while (page.json?.pagination?.has_more) {
    firstCursor ??= page.json.pagination.next_cursor as string;
    page = await client.send('GET', client.api(`/businesses/${business}/sms/bulk-messages/${bulkId}/messages?limit=2&cursor=${encodeURIComponent(page.json.pagination.next_cursor)}`), bearer);
  }
  await client.send('GET', client.api(`/businesses/${business}/sms/bulk-messages/${bulkId}/messages`), bearer);
  await client.send('GET', client.api(`/businesses/${business}/sms/bulk-messages/${bulkId}/messages?status=delivered&limit=1`), bearer);

  const templated = JSON.stringify({ from: f.senderId, classification: 'transactional', template_id: f.templateId, recipients: recipients.slice(0, 2).map((r) => ({ ...r, template_variables: Object.fromEntries((f.templatePlaceholders ?? []).map((p) => [p, 'x'])) })) });
  const second = await client.send('POST', client.api(`/businesses/${business}/sms/bulk-messages`), { ...json, 'idempotency-key': `tc-${randomUUID()}` }, templated);
  const secondId = second.json.id as string;
  await client.send('GET', client.api(`/businesses/${business}/sms/bulk-messages/${secondId}`), bearer);
  // The first bulk's cursor presented for the second: a refusal is expected.
  if (firstCursor) await client.send('GET', client.api(`/businesses/${business}/sms/bulk-messages/${secondId}/messages?limit=2&cursor=${encodeURIComponent(firstCursor)}`), bearer);

  if (f.messageId) await client.send('GET', client.api(`/businesses/${business}/sms/messages/${f.messageId}`), bearer);
  if (f.foreignMessageId) await client.send('GET', client.api(`/businesses/${business}/sms/messages/${f.foreignMessageId}`), bearer);
  await client.send('GET', client.api(`/businesses/${business}/sms/messages/${unknownId()}`), bearer);
  await client.send('GET', client.api(`/businesses/${business}/wallet/balance`), { 'x-request-id': 'tc-no-token' });
  if (f.expiredToken) await client.send('GET', client.api(`/businesses/${business}/wallet/balance`), { authorization: `Bearer ${f.expiredToken}` });
  // A token for another audience, minted by the reference's control origin (test setup, not recorded).
  const minted = await fetch(`${reference.controlUrl}/tokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kind: 'wrong-audience' }) });
  const otherAudience = ((await minted.json()) as { access_token: string }).access_token;
  await client.send('GET', client.api(`/businesses/${business}/wallet/balance`), { authorization: `Bearer ${otherAudience}` });
  // The second application, granted on the business without wallet.balance.read.
  const limited = reference.apps.limited;
  const limitedToken = await client.send('POST', reference.tokenUrl, { authorization: `Basic ${Buffer.from(`${limited.clientId}:${limited.clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' }, 'grant_type=client_credentials');
  await client.send('GET', client.api(`/businesses/${business}/wallet/balance`), { authorization: `Bearer ${limitedToken.json.access_token as string}` });
  if (f.otherBusinessId) await client.send('GET', client.api(`/businesses/${f.otherBusinessId}/wallet/balance`), bearer);
  if (f.otherBusinessId && f.foreignMessageId) await client.send('GET', client.api(`/businesses/${f.otherBusinessId}/sms/messages/${f.foreignMessageId}`), bearer);
  if (f.otherBusinessId) await client.send('GET', client.api(`/businesses/${f.otherBusinessId}/sms/messages/${unknownId()}`), bearer);

  if (options.overLimit !== false) {
  const tooMany = JSON.stringify({ from: f.senderId, classification: 'transactional', message: 'Too many', recipients: Array.from({ length: 1001 }, (_, i) => ({ to: (f.recipients ?? ['+447700900001'])[i % (f.recipients?.length ?? 1)] })) });
  await client.send('POST', client.api(`/businesses/${business}/sms/bulk-messages`), { ...json, 'idempotency-key': `tc-${randomUUID()}` }, tooMany);
  }

  if (f.webhookEndpointId) await client.send('DELETE', client.api(`/businesses/${business}/webhook-endpoints/${f.webhookEndpointId}`), { ...bearer, 'x-request-id': 'tc-delete-1' });
  return client.har;
}

/** The env-file lines that tell `check` the session's fixtures (no secret in them). */
export function envLines(reference: RunningReference): string {
  const f = reference.fixtures;
  return [
    `CONFORMANCE_BUSINESS_ID=${f.businessId}`,
    `CONFORMANCE_OTHER_BUSINESS_ID=${f.otherBusinessId}`,
    `CONFORMANCE_FOREIGN_MESSAGE_ID=${f.foreignMessageId}`,
    `CONFORMANCE_FOREIGN_BULK_ID=${f.foreignBulkId}`,
    `CONFORMANCE_FOREIGN_WEBHOOK_ENDPOINT_ID=${f.foreignWebhookEndpointId}`,
    `CONFORMANCE_LIMITED_CLIENT_ID=${reference.apps.limited.clientId}`,
    '',
  ].join('\n');
}

/** The example HAR's stand-ins for the session's credentials: plainly fake, and the same everywhere. */
export const FAKE_TOKEN = 'example-access-token-NOT-A-SECRET';
export const FAKE_SECRET = 'example-client-secret-NOT-A-SECRET';

/** A session HAR with its real credentials replaced by the fake ones (for a file that is committed). */
export function withFakeCredentials(har: Har, reference: RunningReference): Har {
  const { clientId, clientSecret } = reference.apps.primary;
  let text = JSON.stringify(har);
  const realBasic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64');
  const tokens = har.log.entries.flatMap((e) => e.request.headers.filter((h) => /^authorization$/i.test(h.name) && /^Bearer /.test(h.value)).map((h) => h.value.slice(7)));
  for (const token of new Set(tokens)) text = text.split(token).join(FAKE_TOKEN);
  text = text.split(realBasic).join(Buffer.from(`${clientId}:${FAKE_SECRET}`).toString('base64')).split(clientSecret).join(FAKE_SECRET);
  const limited = reference.apps.limited;
  text = text.split(Buffer.from(`${limited.clientId}:${limited.clientSecret}`).toString('base64')).join(Buffer.from(`${limited.clientId}:${FAKE_SECRET}`).toString('base64'));
  const issued = har.log.entries.map((e) => { try { return JSON.parse(e.response.content.text).access_token as unknown; } catch { return undefined; } });
  for (const token of issued) if (typeof token === 'string') text = text.split(token).join(FAKE_TOKEN);
  return JSON.parse(text) as Har;
}

/** A token and a burst of wallet reads at once: against a rate-limited host, some answers are 429. */
export async function burstSession(reference: RunningReference, reads = 12): Promise<Har> {
  const client = new RecordingClient(reference.baseUrl);
  const { clientId, clientSecret } = reference.apps.primary;
  const basic = Buffer.from(`${clientId}:${clientSecret}`).toString('base64');
  const token = await client.send('POST', reference.tokenUrl, { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' }, 'grant_type=client_credentials');
  const bearer = { authorization: `Bearer ${token.json.access_token as string}` };
  await Promise.all(Array.from({ length: reads }, (_, i) => client.send('GET', client.api(`/businesses/${reference.fixtures.businessId}/wallet/balance`), { ...bearer, 'x-request-id': `burst-${i}` })));
  return client.har;
}
