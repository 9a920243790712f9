// Safety rails, enforced inside the HTTP client so that no suite can get around them.
//
// 1. Profile `safe` sends nothing but GET through the API client (token requests go through the
//    token endpoint path of the client, which is a POST by nature and creates nothing).
// 2. Against a non-embedded host, a request body may only address numbers of
//    CONFORMANCE_RECIPIENTS: every `to` value and every string in a `recipients` array must be one
//    of them (or a spelling of one), or a string no server could deliver to (too short or long, a
//    leading zero). A body that is not JSON may not contain any other digit run that looks like a
//    deliverable number; ids are not numbers.
// 3. DELETE against a non-embedded host only ever targets the configured webhook endpoint (any
//    business segment, since the endpoint id alone names the resource), or, on a declared sandbox,
//    any other id (a random one, another business's endpoint through a caller that must be refused)
//    but never another business's configured endpoint as that business's own application (which
//    may deactivate it); against the embedded reference any DELETE is allowed.
// 4. Idempotency keys always carry the run id, so a rerun never collides with an earlier run.
import type { ApiRequest } from './client.ts';
import { HarnessError } from './errors.ts';
import type { Profile } from '../core/model.ts';
import { RECIPIENTS_MEMBER, TO_MEMBER, mayAddress, phoneLikeRuns } from '../spec/phone-numbers.ts';

export interface SafetyContext {
  profile: Profile;
  embedded: boolean;
  webhookEndpointId?: string;
  recipients?: string[];
  /**
   * CONFORMANCE_SANDBOX=true: DELETE may also name endpoint ids the business does not have (a
   * random id, another business's endpoint through a caller that must be refused), never another
   * business's configured endpoint as that business's own application.
   */
  sandbox?: boolean;
  foreignWebhookEndpointId?: string;
}

function refuse(message: string): never {
  throw new HarnessError('SAFETY_REFUSED', message);
}

/** Throws SAFETY_REFUSED when the request may not be sent. Called before any byte leaves. */
export function assertRequestAllowed(request: ApiRequest, context: SafetyContext): void {
  const method = request.method.toUpperCase();
  if (context.profile === 'safe' && method !== 'GET') {
    refuse(`profile safe sends only GET; refused ${method} ${request.path}`);
  }
  if (context.embedded) return;
  if (method === 'DELETE') assertDeleteTargetsConfiguredEndpoint(request.path, context, request.as);
  assertOnlyAllowedRecipients(request, context.recipients ?? []);
}

function assertDeleteTargetsConfiguredEndpoint(path: string, context: SafetyContext, as: ApiRequest['as']): void {
  const endpointId = context.webhookEndpointId;
  if (!endpointId) {
    refuse(`DELETE ${path} refused: no CONFORMANCE_WEBHOOK_ENDPOINT_ID is configured, and a run only deactivates that endpoint`);
  }
  const pathOnly = path.split('?')[0] ?? '';
  const segments = pathOnly.split('/');
  // ['', 'v1', 'businesses', <any>, 'webhook-endpoints', <id>]
  const endpointPath =
    segments.length === 6 && segments[0] === '' && segments[1] === 'v1' && segments[2] === 'businesses' && segments[4] === 'webhook-endpoints';
  const id = safeDecode(segments[5] ?? '');
  const ownersEndpoint = id === context.foreignWebhookEndpointId && as === 'other';
  const ok = endpointPath && (id === endpointId || (context.sandbox === true && !ownersEndpoint));
  if (!ok) refuse(`DELETE ${pathOnly} refused: a run only deactivates the configured webhook endpoint ${endpointId}`);
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Every number a body addresses: `to` values anywhere, and strings or numbers in `recipients` arrays. */
export function addressedNumbers(body: unknown): string[] {
  const found: string[] = [];
  const visit = (value: unknown, key: string | undefined, inRecipients: boolean): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item, undefined, key === RECIPIENTS_MEMBER || inRecipients);
      return;
    }
    if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) visit(v, k, false);
      return;
    }
    if (typeof value === 'string' || typeof value === 'number') {
      if (key === TO_MEMBER || (inRecipients && key === undefined)) found.push(String(value));
    }
  };
  visit(body, undefined, false);
  return found;
}

function assertOnlyAllowedRecipients(request: ApiRequest, recipients: string[]): void {
  if (request.json === undefined && request.rawBody === undefined) return;
  let body: unknown = request.json;
  if (request.json === undefined) {
    try {
      body = JSON.parse(request.rawBody ?? '');
    } catch {
      // Not JSON: a lenient server might still read numbers out of it, so no other number may
      // appear. Ids and their fragments are not numbers (spec/phone-numbers.ts).
      for (const run of phoneLikeRuns(request.rawBody ?? '')) {
        if (!mayAddress(run, recipients)) {
          refuse(`${request.method} ${request.path} refused: the body mentions ${run}, which is not in CONFORMANCE_RECIPIENTS`);
        }
      }
      return;
    }
  }
  for (const number of addressedNumbers(body)) {
    if (!mayAddress(number, recipients)) {
      refuse(
        `${request.method} ${request.path} refused: ${JSON.stringify(number)} is not in CONFORMANCE_RECIPIENTS; ` +
          'against a non-embedded host the run only sends to those numbers (or to strings no server could deliver to)',
      );
    }
  }
}

/** A fresh idempotency key: `${runId}-${label}-${clientTag}${counter}`, always carrying the run id. */
export function makeIdempotencyKey(runId: string, clientTag: string, counter: number, label?: string): string {
  return `${runId}-${label ?? 'k'}-${clientTag}${counter}`;
}
