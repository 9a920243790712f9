// Client of the embedded reference's control origin (config.target.controlUrl; contract in
// reference/README.md): move the clock, switch faults, mint expired or wrong-audience tokens and
// read state the API does not show. Against any other host there is no control origin, and every
// function here skips the check with that reason, so no check ever fails for want of it. Such a
// skip is `not-observable`: no fixture can stand in for the control origin, so certification lists
// the check as an exclusion instead of refusing for it.
import type { CheckContext } from './check.ts';

export type TestTokenKind = 'valid' | 'expired' | 'wrong-audience';

/** Faults the reference can switch (a subset may be given; the rest keep their value). */
export interface Faults {
  walletUnavailable: boolean;
  serviceUnavailable: boolean;
  internalError: boolean;
  /** Requests per minute per application before 429; null = no limit. */
  rateLimitPerMinute: number | null;
  /** Authoritative intake and submission totals unavailable to bulk reads (2.2). */
  countsUnavailable: boolean;
}

export interface EndpointState {
  id: string;
  business_id: string;
  active: boolean;
  deactivated_at: string | null;
}

/** The control origin, or a skip naming what is missing. */
export function controlUrlOf(t: CheckContext, needFor: string): string {
  const url = t.config.target.controlUrl;
  if (!url) t.skip(`${needFor} needs the embedded reference's control origin; the target has none`, 'not-observable');
  return url;
}

/** True when the target has a control origin (for checks that only add to what they can observe). */
export function hasControl(t: CheckContext): boolean {
  return Boolean(t.config.target.controlUrl);
}

async function call(base: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  let response: Response;
  try {
    response = await fetch(new URL(path, base), {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
  } catch (error) {
    // The harness started the control origin, so this is a harness failure, not a verdict.
    throw new Error(`control origin unreachable (${method} ${path}): ${(error as Error).message}`);
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, json };
}

async function callOk(base: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  const { status, json } = await call(base, method, path, body);
  if (status < 200 || status >= 300) throw new Error(`control origin refused ${method} ${path}: HTTP ${status}`);
  return json;
}

/** Moves the reference's business clock forward (cursor lifetime, idempotency window). */
export async function advanceClock(t: CheckContext, ms: number): Promise<void> {
  const base = controlUrlOf(t, 'moving the clock');
  await callOk(base, 'POST', '/clock/advance', { ms });
}

export async function currentFaults(t: CheckContext): Promise<Faults> {
  const base = controlUrlOf(t, 'reading faults');
  return (await callOk(base, 'GET', '/faults')) as Faults;
}

/** Switches faults on or off; returns the values they had, for `restoreFaults`. */
export async function setFaults(t: CheckContext, faults: Partial<Faults>, needFor = 'forcing a fault'): Promise<Faults> {
  const base = controlUrlOf(t, needFor);
  const before = (await callOk(base, 'GET', '/faults')) as Faults;
  await callOk(base, 'POST', '/faults', faults);
  return before;
}

export async function restoreFaults(t: CheckContext, before: Faults): Promise<void> {
  const base = controlUrlOf(t, 'restoring faults');
  await callOk(base, 'POST', '/faults', before);
}

/** Runs `action` with the faults switched on, and always switches them back. */
export async function withFaults<T>(t: CheckContext, faults: Partial<Faults>, needFor: string, action: () => Promise<T>): Promise<T> {
  const before = await setFaults(t, faults, needFor);
  try {
    return await action();
  } finally {
    await restoreFaults(t, before);
  }
}

export interface TemplateRevision {
  template_id: string;
  /** The revision that was active until now. */
  previous_revision_id: string;
  /** The new active revision. */
  revision_id: string;
}

/** Gives a template of the reference a new active revision (same placeholders). */
export async function reviseTemplate(t: CheckContext, templateId: string): Promise<TemplateRevision> {
  const base = controlUrlOf(t, 'a new active template revision');
  return (await callOk(base, 'POST', `/templates/${encodeURIComponent(templateId)}/revise`)) as TemplateRevision;
}

/** A token signed by the reference's authorization server, valid, expired or for another audience. */
export async function mintToken(t: CheckContext, kind: TestTokenKind, app: 'primary' | 'limited' = 'primary'): Promise<string> {
  const base = controlUrlOf(t, `a token that is ${kind === 'valid' ? 'minted on demand' : kind}`);
  const json = (await callOk(base, 'POST', '/tokens', { app, kind })) as { access_token?: unknown };
  if (typeof json?.access_token !== 'string') throw new Error('control origin gave no access_token');
  return json.access_token;
}

/** State of a webhook endpoint as the reference holds it; undefined when it does not know the id. */
export async function webhookEndpointState(t: CheckContext, endpointId: string): Promise<EndpointState | undefined> {
  const base = controlUrlOf(t, "reading a webhook endpoint's state");
  const { status, json } = await call(base, 'GET', `/state/webhook-endpoints/${encodeURIComponent(endpointId)}`);
  if (status === 404) return undefined;
  if (status !== 200) throw new Error(`control origin refused GET /state/webhook-endpoints: HTTP ${status}`);
  return json as EndpointState;
}
