// Plain-HTTP helpers for the reference's own tests: start it on ephemeral loopback ports, get
// tokens from its authorization server, call the API and the control origin. Independent of the
// checker's suites and client on purpose.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startReference, type ReferenceOptions, type RunningReference } from '../../reference/index.ts';

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON, or undefined. */
  json: any;
}

export type As = 'primary' | 'limited' | 'other' | 'none' | { bearer: string } | { authorization: string };

export interface CallOptions {
  as?: As;
  json?: unknown;
  body?: string;
  headers?: Record<string, string>;
  query?: Record<string, string> | Array<[string, string]>;
}

export interface Harness {
  ref: RunningReference;
  /** Fixture ids, all filled. */
  f: Required<RunningReference['fixtures']>;
  b: string;
  call(method: string, path: string, options?: CallOptions): Promise<Reply>;
  token(app: 'primary' | 'limited' | 'other'): Promise<string>;
  control(method: 'GET' | 'POST', path: string, body?: unknown): Promise<any>;
  /** POST a bulk with a fresh idempotency key unless one is given in headers. */
  submit(body: unknown, options?: CallOptions & { key?: string; business?: string }): Promise<Reply>;
  paths: typeof paths;
}

export const paths = {
  bulks: (b: string) => `/v1/businesses/${b}/sms/bulk-messages`,
  bulk: (b: string, id: string) => `/v1/businesses/${b}/sms/bulk-messages/${id}`,
  rows: (b: string, id: string) => `/v1/businesses/${b}/sms/bulk-messages/${id}/messages`,
  message: (b: string, id: string) => `/v1/businesses/${b}/sms/messages/${id}`,
  wallet: (b: string) => `/v1/businesses/${b}/wallet/balance`,
  webhook: (b: string, id: string) => `/v1/businesses/${b}/webhook-endpoints/${id}`,
};

async function reply(res: Response): Promise<Reply> {
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

let keyCounter = 0;
export const freshKey = (label = 'k') => `${label}-${process.pid}-${Date.now()}-${++keyCounter}`;

/** Starts a reference for the file (beforeAll) and closes it (afterAll). */
export function useReference(options: ReferenceOptions = {}): Harness {
  const h = {} as Harness;
  beforeAll(async () => {
    Object.assign(h, harnessFor(await startReference(options)));
  });
  afterAll(async () => {
    await h.ref?.close();
  });
  return h;
}

/** A harness over a reference that is already running (the caller closes it). */
export function harnessFor(ref: RunningReference): Harness {
  const h = {} as Harness;
  const tokens = new Map<string, string>();
  h.ref = ref;
  h.f = ref.fixtures as Required<RunningReference['fixtures']>;
  h.b = ref.fixtures.businessId!;
  h.paths = paths;
  h.token = async (app) => {
    const cached = tokens.get(app);
    if (cached) return cached;
    const creds = h.ref.apps[app];
    const res = await fetch(h.ref.tokenUrl, {
      method: 'POST',
      headers: { authorization: basic(creds.clientId, creds.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&audience=service-external-api',
    });
    const body = (await res.json()) as { access_token: string };
    tokens.set(app, body.access_token);
    return body.access_token;
  };
  h.call = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    const as = o.as ?? 'primary';
    if (as === 'primary' || as === 'limited' || as === 'other') headers.authorization = `Bearer ${await h.token(as)}`;
    else if (typeof as === 'object' && 'bearer' in as) headers.authorization = `Bearer ${as.bearer}`;
    else if (typeof as === 'object') headers.authorization = as.authorization;
    let body: string | undefined = o.body;
    if (o.json !== undefined) {
      body = JSON.stringify(o.json);
      headers['content-type'] ??= 'application/json';
    }
    const qs = o.query ? `?${new URLSearchParams(o.query as Record<string, string>).toString()}` : '';
    return reply(await fetch(`${h.ref.baseUrl}${path}${qs}`, { method, headers, body }));
  };
  h.control = async (method, path, body) => {
    const res = await fetch(`${h.ref.controlUrl}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return res.json();
  };
  h.submit = (body, o = {}) => {
    const headers = { 'idempotency-key': o.key ?? freshKey(), ...o.headers };
    return h.call('POST', paths.bulks(o.business ?? h.b), { ...o, json: body, headers });
  };
  return h;
}

/** A valid message-based submission for the harness's fixtures. */
export function messageBody(h: Harness, overrides: Record<string, unknown> = {}, count = 3): Record<string, unknown> {
  const numbers = h.f.recipients;
  return {
    from: h.f.senderId,
    classification: 'transactional',
    message: 'Your parcel is on its way.',
    recipients: Array.from({ length: count }, (_, i) => ({ to: numbers[i % numbers.length]! })),
    ...overrides,
  };
}

/** A valid template-based submission with every placeholder given. */
export function templateBody(h: Harness, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const vars = Object.fromEntries(h.f.templatePlaceholders.map((p) => [p, `value of ${p}`]));
  return {
    from: h.f.senderId,
    classification: 'transactional',
    template_id: h.f.templateId,
    recipients: h.f.recipients.slice(0, 2).map((to) => ({ to, template_variables: vars })),
    ...overrides,
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const UUID_V7 = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-7[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$/;
export const UTC_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
export const RANDOM_V7 = '01900000-0000-7000-8000-000000000000';

/** Asserts the section 7 shape and returns the problem body. */
export function problemOf(r: Reply): Record<string, any> {
  return r.json as Record<string, any>;
}

/** Polls a bulk until `done` holds or `ms` pass; returns every observation. */
export async function observeBulk(h: Harness, id: string, ms = 1500, every = 40): Promise<any[]> {
  const seen: any[] = [];
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const r = await h.call('GET', paths.bulk(h.b, id));
    seen.push(r.json);
    await sleep(every);
  }
  return seen;
}

/**
 * One test per defect: its probe finds the rule intact on the faithful reference and broken with
 * only that defect on (both registries, the main and the blind one, are held to it alike).
 */
export function holdsProbesBothWays(defects: ReadonlyArray<{ id: string; requirement: string }>, probes: Record<string, (h: Harness) => Promise<boolean>>): void {
  const T0 = Date.now();
  for (const defect of defects) {
    it(`${defect.id} [${defect.requirement}]`, async () => {
      const probe = probes[defect.id]!;
      for (const on of [[], [defect.id]]) {
        const ref = await startReference({ defects: on, now: () => T0 });
        try {
          expect(await probe(harnessFor(ref)), on.length ? 'with the defect' : 'faithful').toBe(on.length > 0);
        } finally {
          await ref.close();
        }
      }
    });
  }
}
