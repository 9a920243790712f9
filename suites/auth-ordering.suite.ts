// auth-ordering: authentication and the order of the authorization steps (4, 5). Without valid
// authentication every operation answers 401 authentication_required before anything else; with
// it, a business without grant is refused before its resources are looked at; permission and
// sender refusals are 403. Where the document leaves the order open, the answer is recorded.
import type { ApiRequest, ApiResponse, Caller } from '../harness/client.ts';
import type { RequirementId } from '../spec/requirement-ids.ts';
import { describe } from './support/declare.ts';
import { checksFor, type CheckContext } from './support/check.ts';
import { hasControl, mintToken } from './support/control.ts';
import { paths } from './support/paths.ts';
import { codeOf, describeResponse, expectNoServerFault, expectProblem, isProblem } from './support/problem.ts';
import { spendFixture } from './support/spend.ts';
import { randomUuidV7 } from './support/random-ids.ts';
import { MALFORMED_AUTHORIZATIONS, MAX_FORGERIES, forgeries, malformedAuthorizations, submissionBody, tamper } from './support/credentials.ts';
import { OTHER_TENANT_HEADER, declareMatrixColumns, grantedAfterRefusalsCost, runGrantedAfterRefusals, runMatrixAfterWrite, sendOwnWrite } from './support/matrix-run.ts';
import { RESOURCE_FIXTURES, afterWriteCost, matrixRows, pathOf, writeRowOn } from './support/authorization.ts';
import { queryShown, queryValue, sentName } from './support/listings.ts';
import { openapi } from '../spec/contract.ts';

// Each check sends its own requests and reads nothing another leaves: they may overlap.
const check = checksFor('auth-ordering', { independent: true });

/** Requests of `expect401Everywhere`: the four reads, the submission and the deactivation. */
const EVERY_OPERATION = 6;
/** What the submission and the deactivation of `expect401Everywhere` do when a wrong credential is accepted. */
const WRITES_IF_ACCEPTED = 'creates a bulk SMS or deactivates the webhook endpoint if a wrong credential is accepted';

interface Operation {
  /** operationId of the document. */
  name: string;
  /** Changes the target when it succeeds: left out in the safe profile. */
  writes: boolean;
  request: ApiRequest;
  /** The fixture a 2xx uses up on a host (the configured endpoint, deactivated). */
  spends?: string;
}

/**
 * Every operation of section 4 on the caller's business, on real resources where the fixtures
 * name them (so only the authentication can be wrong), random ids otherwise.
 */
function operations(t: CheckContext): Operation[] {
  const f = t.config.fixtures;
  const businessId = t.fixture('businessId');
  const bulkId = f.expiredCursorBulkId ?? randomUuidV7(t, 'auth/bulk');
  const messageId = f.messageId ?? randomUuidV7(t, 'auth/message');
  const all: Operation[] = [
    {
      name: 'createSmsBulkMessage',
      writes: true,
      request: {
        method: 'POST',
        path: paths.bulkMessages(businessId),
        headers: { 'Idempotency-Key': t.api.idempotencyKey('auth') },
        json: submissionBody(t),
      },
    },
    { name: 'getSmsBulkMessage', writes: false, request: { method: 'GET', path: paths.bulkMessage(businessId, bulkId) } },
    { name: 'listSmsBulkMessageRecipients', writes: false, request: { method: 'GET', path: paths.bulkRecipients(businessId, bulkId) } },
    { name: 'getSmsMessage', writes: false, request: { method: 'GET', path: paths.message(businessId, messageId) } },
    { name: 'getWalletBalance', writes: false, request: { method: 'GET', path: paths.walletBalance(businessId) } },
  ];
  // Only the configured endpoint is ever the target of a DELETE (harness/safety.ts).
  if (f.webhookEndpointId) {
    all.push({ name: 'deactivateWebhookEndpoint', writes: true, spends: f.webhookEndpointId, request: { method: 'DELETE', path: paths.webhookEndpoint(businessId, f.webhookEndpointId) } });
  }
  if (t.config.settings.profile === 'safe') {
    const left = all.filter((op) => op.writes).map((op) => op.name);
    t.note(`profile safe: ${left.join(', ')} left out`);
    return all.filter((op) => !op.writes);
  }
  return all;
}

/** Sends every operation as `caller` and fails unless each answers 401 authentication_required. */
async function expect401Everywhere(t: CheckContext, caller: Caller, requirement: RequirementId, why: string, query?: Array<[string, string]>): Promise<void> {
  // Reads first: a credential wrongly accepted fails the check before anything is written.
  const readsFirst = [...operations(t)].sort((a, b) => Number(a.writes) - Number(b.writes));
  for (const op of readsFirst) {
    const res = await t.api.send({ ...op.request, as: caller, ...(query ? { query } : {}) });
    // A host that wrongly deactivates without valid credentials spent the endpoint: the next run takes another.
    if (op.spends && res.status >= 200 && res.status < 300) spendFixture(t, 'webhookEndpointId', op.spends);
    expectProblem(t, res, { status: 401, codes: ['authentication_required'], requirement, why: `${op.name}, ${why}` });
  }
}

/**
 * The wallet read with the application's own valid token, before a check sends tokens of the same
 * client that are invalid: 5.8 judges every token on its own, so no valid token verified before
 * may carry a later invalid one (blind6-client-session-after-valid-token kept a session per client
 * id once a valid token was seen). Sent by the check itself, as on a host's schedule (or the check
 * run alone) no other may have come first. Its answer is only noted (other checks judge it).
 */
async function validReadFirst(t: CheckContext): Promise<void> {
  const res = await t.api.send({ method: 'GET', path: paths.walletBalance(t.fixture('businessId')) });
  t.note(`the wallet read with the application's valid token first: ${describeResponse(res)}`);
}

/** `aud` of a JWT access token, or undefined when the token is not a JWT. */
function audienceOf(token: string): string[] | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as { aud?: unknown };
    if (typeof payload.aud === 'string') return [payload.aud];
    if (Array.isArray(payload.aud)) return payload.aud.filter((a): a is string => typeof a === 'string');
    return [];
  } catch {
    return undefined;
  }
}

function basicOf(clientId: string, secret: string): string {
  const form = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${form(clientId)}:${form(secret)}`).toString('base64')}`;
}

/** The reads of the spec that take query parameters (the recipient listing), derived from spec/openapi.yaml. */
const QUERY_ROWS = matrixRows().filter((row) => !row.writes && row.query.length > 0);

/** The path templates of the document (spec/openapi.yaml). */
const DOCUMENT_PATHS = Object.keys(openapi.paths);

/** A path template filled in: the business of the run, a fresh UUIDv7 for every other id. */
function filled(t: CheckContext, template: string): string {
  const businessId = t.config.fixtures.businessId ?? randomUuidV7(t, 'auth/paths/business');
  return template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(name === 'businessId' ? businessId : randomUuidV7(t, `auth/paths/${name}`)));
}

/**
 * Paths under the API that are no operation, derived from the document's: each operation path
 * with one more segment, and each parent of one that is no path of the document itself.
 */
function unknownPathTemplates(): string[] {
  const known = new Set(DOCUMENT_PATHS);
  const out = new Set<string>();
  for (const p of DOCUMENT_PATHS) {
    out.add(`${p}/conformance-unknown`);
    const segments = p.split('/');
    for (let n = segments.length - 1; n > 2; n--) {
      const parent = segments.slice(0, n).join('/');
      if (!known.has(parent)) out.add(parent);
    }
  }
  return [...out];
}

describe('auth-ordering (4, 5)', () => {
  check(
    {
      id: 'unknown-paths-missing-and-invalid-token-alike',
      title:
        'Each path under the API that is no operation (derived from the document: one segment more, or a parent), without a token and with an invalid one: answered alike (401 for both, or 404 for both)',
      requirements: ['AUTH-401-FIRST', 'AUTH-UNKNOWN-PATH'],
      maxRequests: 2 * unknownPathTemplates().length + 1,
    },
    async (t) => {
      // Blind defect blind3-unknown-path-invalid-token-404: what an unknown path gets is not shown
      // (AUTH-UNKNOWN-PATH: 401 or 404), but 5.8 makes missing and invalid authentication one
      // case, so whichever the host answers without a token it answers with an invalid one.
      const { token, how } = tamper(await t.api.token('primary'));
      const answers: string[] = [];
      for (const template of unknownPathTemplates()) {
        const path = filled(t, template);
        const none = await t.api.send({ method: 'GET', path, as: 'none' });
        const invalid = await t.api.send({ method: 'GET', path, as: { bearer: token } });
        const [a, b] = [none, invalid].map((r) => `${r.status} ${codeOf(r.json) ?? ''}`.trim());
        t.expect(a === b, 'AUTH-401-FIRST', `${template} (no operation) answered alike without a token and with an invalid one (${how})`, `without a token ${a}, with an invalid one ${b}`, none, invalid);
        answers.push(`${template}: ${a}`);
      }
      t.note(`paths that are no operation: ${answers.join('; ')}`);
    },
  );

  check(
    {
      id: 'head-without-token',
      title: 'HEAD on every path of the document, without a token: never 2xx (HEAD is the GET of a path without its body, RFC 9110 9.3.2)',
      requirements: ['AUTH-ALL-OPERATIONS'],
      maxRequests: DOCUMENT_PATHS.length,
      // Profile safe sends only GET (harness/safety.ts).
      writes: 'sends HEAD, which profile safe does not send',
    },
    async (t) => {
      // Blind defect blind3-head-skips-auth: a framework's automatic HEAD answers before the
      // authentication step. OPTIONS is left out: the document says nothing of it, and a CORS
      // preflight is answered without credentials by design.
      const answers: string[] = [];
      for (const template of DOCUMENT_PATHS) {
        const res = await t.api.send({ method: 'HEAD', path: filled(t, template), as: 'none' });
        t.expect(res.status < 200 || res.status >= 300, 'AUTH-ALL-OPERATIONS', `no 2xx for HEAD ${template} without a token (401 authentication_required, or 404/405)`, `${res.status}`, res);
        answers.push(`${template}: ${res.status}`);
      }
      t.note(`HEAD without a token: ${answers.join('; ')}`);
    },
  );

  check(
    {
      id: 'no-authorization-401',
      title: 'Every operation without an Authorization header: 401 authentication_required, never 2xx',
      requirements: ['AUTH-401-MISSING', 'AUTH-ALL-OPERATIONS'],
      needs: ['businessId'],
      maxRequests: EVERY_OPERATION,
      writes: WRITES_IF_ACCEPTED,
      readsInSafe: true,
    },
    async (t) => {
      await expect401Everywhere(t, 'none', 'AUTH-401-MISSING', 'no Authorization header');
    },
  );

  check(
    {
      id: 'token-outside-header-401',
      title:
        "Every operation without an Authorization header but with the application's valid token where RFC 6750 also lets a client put it (the access_token query parameter): 401 authentication_required",
      requirements: ['AUTH-401-MISSING', 'AUTH-ALL-OPERATIONS'],
      needs: ['businessId'],
      maxRequests: EVERY_OPERATION,
      writes: WRITES_IF_ACCEPTED,
      readsInSafe: true,
    },
    async (t) => {
      // Blind defect blind-token-in-query-accepted: a call with no Authorization header is
      // unauthenticated wherever else a valid token travels (a URL ends up in logs and caches).
      // The token is one this client obtained, so every record of it is redacted.
      const token = await t.api.token('primary');
      await expect401Everywhere(t, 'none', 'AUTH-401-MISSING', 'no Authorization header, the valid token as access_token in the query', [['access_token', token]]);
    },
  );

  check(
    {
      id: 'basic-scheme-401',
      title: "Every operation with the application's client credentials as Basic, and the wallet with a valid token under the scheme Token: 401 authentication_required",
      requirements: ['AUTH-BEARER', 'AUTH-ALL-OPERATIONS'],
      needs: ['primaryApp', 'businessId'],
      maxRequests: EVERY_OPERATION + 1,
      writes: WRITES_IF_ACCEPTED,
      readsInSafe: true,
    },
    async (t) => {
      const app = t.app('primary');
      await expect401Everywhere(t, { authorization: basicOf(app.clientId, app.clientSecret) }, 'AUTH-BEARER', 'Basic client credentials');
      const businessId = t.fixture('businessId');
      const token = await t.api.token('primary');
      const res = await t.api.send({ method: 'GET', path: paths.walletBalance(businessId), as: { authorization: `Token ${token}` } });
      expectProblem(t, res, { status: 401, codes: ['authentication_required'], requirement: 'AUTH-BEARER', why: 'a valid token under a scheme other than Bearer' });
    },
  );

  check(
    {
      id: 'malformed-token-401',
      title:
        "Every operation with a bearer value that is no token at all; the wallet with the bare scheme, and with Authorization values that hold the application's valid token but are no Bearer credentials (another part after or before it, a tab, a second credential after a comma or before it, the scheme twice): 401 authentication_required",
      requirements: ['AUTH-401-INVALID', 'AUTH-ALL-OPERATIONS'],
      needs: ['businessId'],
      maxRequests: EVERY_OPERATION + 1 + MALFORMED_AUTHORIZATIONS,
      writes: WRITES_IF_ACCEPTED,
      readsInSafe: true,
    },
    async (t) => {
      await expect401Everywhere(t, { bearer: 'not-a-token' }, 'AUTH-401-INVALID', 'a malformed token');
      const businessId = t.fixture('businessId');
      const res = await t.api.send({ method: 'GET', path: paths.walletBalance(businessId), as: { authorization: 'Bearer' } });
      expectProblem(t, res, { status: 401, codes: ['authentication_required'], requirement: 'AUTH-401-INVALID', why: 'the Bearer scheme with no token' });
      // Blind defect blind5-bearer-extra-parts-accepted: 5 takes credentials as `Bearer <token>` and
      // nothing else; a value that holds a valid token among other parts is malformed (5.8: 401).
      // Several spaces before the token are the grammar's own (1*SP) and are not sent.
      const token = await t.api.token('primary');
      for (const { authorization, how } of malformedAuthorizations(token)) {
        const malformed = await t.api.send({ method: 'GET', path: paths.walletBalance(businessId), as: { authorization } });
        expectProblem(t, malformed, { status: 401, codes: ['authentication_required'], requirement: 'AUTH-401-INVALID', why: `a valid token in a malformed Authorization value: ${how}` });
      }
    },
  );

  check(
    {
      id: 'tampered-token-401',
      title: "Every operation with the application's valid token, one signature character changed: 401 authentication_required",
      requirements: ['AUTH-401-INVALID', 'AUTH-ALL-OPERATIONS'],
      needs: ['businessId'],
      maxRequests: EVERY_OPERATION,
      writes: WRITES_IF_ACCEPTED,
      readsInSafe: true,
    },
    async (t) => {
      const { token, how } = tamper(await t.api.token('primary'));
      t.note(how);
      await expect401Everywhere(t, { bearer: token }, 'AUTH-401-INVALID', how);
    },
  );

  check(
    {
      id: 'forged-token-401',
      title:
        "After a wallet read with the application's valid token, the wallet with tokens forged from it (JWT: alg none, signature stripped, payload altered under the original signature; any token: a character changed, cut or appended): 401 authentication_required for each",
      requirements: ['AUTH-401-INVALID'],
      needs: ['businessId'],
      maxRequests: 1 + MAX_FORGERIES,
    },
    async (t) => {
      // Blind defect blind-alg-none-token-accepted: only a token the host issued authenticates,
      // whatever its form (opaque or JWT); each forgery is derived from the token this client
      // holds, so every record of it is redacted like the token.
      const businessId = t.fixture('businessId');
      const valid = await t.api.token('primary');
      await validReadFirst(t);
      for (const { token, how } of forgeries(valid)) {
        const res = await t.api.send({ method: 'GET', path: paths.walletBalance(businessId), as: { bearer: token } });
        expectProblem(t, res, { status: 401, codes: ['authentication_required'], requirement: 'AUTH-401-INVALID', why: how });
      }
    },
  );

  check(
    {
      id: 'bearer-scheme-case',
      title: 'The wallet with a valid token under the scheme written bearer and BEARER: 200 (the scheme name is case-insensitive); a 401 is a warning',
      requirements: ['AUTH-BEARER', 'AUTH-BEARER-CASE'],
      needs: ['businessId'],
      maxRequests: 2,
    },
    async (t) => {
      // Blind defect blind-lowercase-bearer-refused: 5 writes the header as Bearer, in HTTP's
      // authentication framework, whose scheme names are case-insensitive (RFC 9110 11.1). A client
      // written from the document sends Bearer; one that writes the scheme from the token
      // response's token_type (RFC 6749 7.1, where bearer is common) is locked out by a refusal.
      const businessId = t.fixture('businessId');
      const token = await t.api.token('primary');
      for (const scheme of ['bearer', 'BEARER']) {
        const res = await t.api.send({ method: 'GET', path: paths.walletBalance(businessId), as: { authorization: `${scheme} ${token}` } });
        if (!expectNoServerFault(t, res, `the scheme written ${scheme}`)) continue;
        if (res.status === 200) t.reading('bearer-scheme-case', 'case-insensitive', scheme);
        else if (isProblem(res, 401, 'authentication_required')) t.reading('bearer-scheme-case', 'exact-case', scheme, res);
        else t.note(`the scheme written ${scheme}: ${describeResponse(res)}`);
      }
    },
  );

  check(
    {
      id: 'expired-token-401',
      title: "After a wallet read with the application's valid token, every operation with an expired token of the application (minted by the embedded reference, or CONFORMANCE_EXPIRED_TOKEN): 401 authentication_required",
      requirements: ['AUTH-401-INVALID', 'AUTH-ALL-OPERATIONS'],
      needs: ['businessId'],
      needsOnHost: ['expiredToken'],
      maxRequests: 1 + EVERY_OPERATION,
      writes: WRITES_IF_ACCEPTED,
      readsInSafe: true,
    },
    async (t) => {
      // Any host can supply one: a token kept past its expires_in.
      const token = hasControl(t)
        ? await mintToken(t, 'expired')
        : t.fixture('expiredToken');
      await validReadFirst(t);
      await expect401Everywhere(t, { bearer: token }, 'AUTH-401-INVALID', 'an expired token');
    },
  );

  check(
    {
      id: 'wrong-audience-401',
      title: 'Every operation with a token of the application issued for another audience: 401 authentication_required',
      requirements: ['AUTH-AUDIENCE', 'AUTH-ALL-OPERATIONS'],
      needs: ['businessId'],
      needsOnHost: ['primaryApp'],
      // Elsewhere a token request for another audience comes first.
      maxRequests: EVERY_OPERATION + 1,
      writes: WRITES_IF_ACCEPTED,
      readsInSafe: true,
    },
    async (t) => {
      let token: string;
      if (hasControl(t)) token = await mintToken(t, 'wrong-audience');
      else {
        // Elsewhere, ask the authorization server for another audience; many refuse, then nothing can be judged.
        const app = t.app('primary');
        const res = await t.api.tokenEndpoint({
          authorization: basicOf(app.clientId, app.clientSecret),
          form: { grant_type: 'client_credentials', audience: 'conformance-other-audience' },
        });
        const issued = (res.json as { access_token?: unknown } | undefined)?.access_token;
        if (res.status !== 200 || typeof issued !== 'string') return t.skip(`the authorization server issues no token for another audience (HTTP ${res.status})`, 'not-observable');
        const aud = audienceOf(issued);
        // Only a token that says it is for another audience proves anything (the audience form field is an assumption).
        if (aud === undefined || aud.length === 0) return t.skip('the issued token names no audience (opaque or without aud): it cannot be told apart from an ordinary token', 'not-observable');
        if (aud.includes(t.config.target.audience)) t.skip('the authorization server ignored the requested audience', 'not-observable');
        token = issued;
      }
      await expect401Everywhere(t, { bearer: token }, 'AUTH-AUDIENCE', 'a token for another audience');
    },
  );

  check(
    {
      id: 'unauthenticated-401-first',
      title:
        "After the application's valid token was refused on a business without grant, without a token, requests that are also wrong otherwise: 401 authentication_required for that business, an unknown business and an unknown message; for malformed input (business id, page size, body) 401 too, a validation error first is a warning",
      requirements: ['AUTH-401-FIRST', 'AUTH-401-BEFORE-VALIDATION', 'AUTH-401-MISSING'],
      needs: ['businessId'],
      maxRequests: 9,
      writes: 'submits invalid bulk SMS bodies without a token',
      readsInSafe: true,
    },
    async (t) => {
      const f = t.config.fixtures;
      const businessId = t.fixture('businessId');
      // 5.6 orders token validation before grant and resource checks: those must give 401.
      const authorization: Array<{ what: string; request: ApiRequest }> = [
        { what: 'a business without grant', request: { method: 'GET', path: paths.walletBalance(f.otherBusinessId ?? randomUuidV7(t, 'auth/first/other')) } },
        { what: 'a business that exists nowhere', request: { method: 'GET', path: paths.walletBalance(randomUuidV7(t, 'auth/first/business')) } },
        { what: 'a message that exists nowhere', request: { method: 'GET', path: paths.message(businessId, randomUuidV7(t, 'auth/first/message')) } },
      ];
      // Against input validation the order is not written down (AUTH-401-BEFORE-VALIDATION).
      // A path id of the wrong shape may fail route matching (404) before anything else runs.
      const malformed: Array<{ what: string; request: ApiRequest; pathShape?: boolean }> = [
        { what: 'a business id that is not a UUID', request: { method: 'GET', path: paths.walletBalance('not-a-business') }, pathShape: true },
        { what: 'an invalid page size', request: { method: 'GET', path: paths.bulkRecipients(businessId, f.expiredCursorBulkId ?? randomUuidV7(t, 'auth/first/bulk')), query: [[t.config.params.limit, '0']] } },
      ];
      if (t.config.settings.profile !== 'safe') {
        malformed.push({
          what: 'an invalid body and no Idempotency-Key',
          request: { method: 'POST', path: paths.bulkMessages(businessId), json: { from: '', recipients: [] } },
        });
        malformed.push({
          what: 'a body that is not JSON',
          request: { method: 'POST', path: paths.bulkMessages(businessId), headers: { 'Idempotency-Key': t.api.idempotencyKey('auth-first'), 'content-type': 'application/json' }, rawBody: '{"from": ' },
        });
      } else t.note('profile safe: the invalid-body cases (POST) left out');
      // The business without grant is first refused to the application's valid token, sent by the
      // check itself (on a host's schedule, or this check alone, no other may have come first): a
      // refusal decided there is no answer to a call without a token, which 5.6 authenticates before
      // any grant (blind10-grant-refusal-cached-before-auth answered 403 from a refusal cache). Its
      // answer is only noted (grant-before-resource judges it).
      const refused = await t.api.send(authorization[0]!.request);
      t.note(`${authorization[0]!.what} with the application's valid token first: ${describeResponse(refused)}`);
      for (const { what, request } of authorization) {
        const res = await t.api.send({ ...request, as: 'none' });
        expectProblem(t, res, { status: 401, codes: ['authentication_required'], requirement: 'AUTH-401-FIRST', why: `no token, and ${what}` });
      }
      // An invalid token is as much "no valid authentication" as none.
      const { token } = tamper(await t.api.token('primary'));
      const tampered = await t.api.send({ method: 'GET', path: paths.walletBalance(f.otherBusinessId ?? randomUuidV7(t, 'auth/first/other')), as: { bearer: token } });
      expectProblem(t, tampered, { status: 401, codes: ['authentication_required'], requirement: 'AUTH-401-FIRST', why: 'a tampered token on a business without grant' });
      for (const { what, request, pathShape } of malformed) {
        const res = await t.api.send({ ...request, as: 'none' });
        if (isProblem(res, 400, 'validation_failed') || (pathShape && isProblem(res, 404, 'resource_not_found'))) {
          t.reading('no-token-invalid-input', 'validation-first', `${what}: ${describeResponse(res)}`, res);
          continue;
        }
        // A 404 for well-formed ids means a lookup ran before the token check; anything else is no 401 at all.
        expectProblem(t, res, { status: 401, codes: ['authentication_required'], requirement: res.status === 404 ? 'AUTH-401-FIRST' : 'AUTH-401-MISSING', why: `no token, and ${what}` });
        t.reading('no-token-invalid-input', 'authentication-first');
      }
    },
  );

  check(
    {
      id: 'unknown-path-without-token',
      title: 'A path that is no operation (/sms/batches), without a token: refused (401 or 404; the document leaves it open), never 2xx or 5xx',
      requirements: ['AUTH-UNKNOWN-PATH', 'SCH-NO-BATCHES-PATH', 'PROB-NO-5XX-FOR-CLIENT-FAULT'],
      maxRequests: 1,
    },
    async (t) => {
      const businessId = t.config.fixtures.businessId ?? randomUuidV7(t, 'auth/unknown-path');
      const res = await t.api.send({ method: 'GET', path: `/v1/businesses/${encodeURIComponent(businessId)}/sms/batches`, as: 'none' });
      expectNoServerFault(t, res, 'a path that is no operation');
      t.expect(res.status >= 300, 'SCH-NO-BATCHES-PATH', 'a refusal such as 401 authentication_required or 404 (no 2xx)', describeResponse(res), res);
      if (res.status === 401 || res.status === 404) t.reading('unknown-path', res.status === 401 ? 'authentication-first' : 'not-found');
      else t.note(`an unknown path without a token answered ${describeResponse(res)}`);
    },
  );

  check(
    {
      id: 'grant-before-resource',
      title:
        'With a valid token, every read on a business without grant, sent after that business\'s own application read its wallet (wallet; bulk, its listing and message, each by an unknown id and, given the fixtures, by an id of that business): 403 permission_denied or a concealing 404 resource_not_found, never 2xx; an existing and an unknown id answered alike',
      requirements: ['AUTH-GRANT', 'AUTH-ORDER', 'AUTH-BUSINESS-SELECTOR', 'AUTH-GRANT-UNIFORM'],
      needs: ['otherBusinessId'],
      uses: ['otherApp'],
      maxRequests: 8,
    },
    async (t) => {
      const f = t.config.fixtures;
      const other = t.fixture('otherBusinessId');
      // 5.6: the grant is the calling application's, decided on every call. The business's own
      // application reads it first, so each refusal below follows a granted caller's pass on that
      // business (blind7-grant-cached-per-business: a decision cached per business lets the next
      // application in), whatever order the run's other checks take.
      if (t.config.apps.other) {
        const granted = await t.api.send({ method: 'GET', path: paths.walletBalance(other), as: 'other', headers: { [OTHER_TENANT_HEADER]: 'other-tenant' } });
        t.note(`the business's own application read its wallet first: ${describeResponse(granted)}`);
      } else t.note("the other business's application is not configured (CONFORMANCE_OTHER_CLIENT_ID): no granted caller passed on that business before these reads");
      const unknownBulk = randomUuidV7(t, 'auth/grant/bulk');
      const unknownMessage = randomUuidV7(t, 'auth/grant/message');
      // Each operation by an unknown id and, where a fixture names one, by an id that exists under
      // that business: the grant is decided before the resource is looked at (5), so both alike.
      const cases: Array<{ operation: string; id: 'none' | 'unknown' | 'existing'; request: ApiRequest }> = [
        { operation: 'getWalletBalance', id: 'none', request: { method: 'GET', path: paths.walletBalance(other) } },
        { operation: 'getSmsBulkMessage', id: 'unknown', request: { method: 'GET', path: paths.bulkMessage(other, unknownBulk) } },
        { operation: 'listSmsBulkMessageRecipients', id: 'unknown', request: { method: 'GET', path: paths.bulkRecipients(other, unknownBulk) } },
        { operation: 'getSmsMessage', id: 'unknown', request: { method: 'GET', path: paths.message(other, unknownMessage) } },
      ];
      if (f.foreignBulkId) {
        cases.push({ operation: 'getSmsBulkMessage', id: 'existing', request: { method: 'GET', path: paths.bulkMessage(other, f.foreignBulkId) } });
        cases.push({ operation: 'listSmsBulkMessageRecipients', id: 'existing', request: { method: 'GET', path: paths.bulkRecipients(other, f.foreignBulkId) } });
      }
      if (f.foreignMessageId) cases.push({ operation: 'getSmsMessage', id: 'existing', request: { method: 'GET', path: paths.message(other, f.foreignMessageId) } });
      const answers: Array<{ operation: string; id: string; res: ApiResponse; answer: string }> = [];
      for (const c of cases) {
        const res = await t.api.send(c.request);
        expectProblem(t, res, {
          status: [403, 404],
          codes: ['permission_denied', 'resource_not_found'],
          requirement: 'AUTH-GRANT',
          why: `${c.operation} (${c.id} id): no grant on the business`,
        });
        answers.push({ operation: c.operation, id: c.id, res, answer: `${res.status} ${codeOf(res.json)}` });
      }
      const list = answers.map((a) => `${a.operation}${a.id === 'none' ? '' : ` (${a.id} id)`} ${a.answer}`).join('; ');
      t.note(`no grant answered: ${list}`);
      // An existing id answered unlike an unknown one: the resource was looked up before the grant.
      for (const existing of answers.filter((a) => a.id === 'existing')) {
        const unknown = answers.find((a) => a.operation === existing.operation && a.id === 'unknown')!;
        t.expect(
          existing.answer === unknown.answer,
          'AUTH-ORDER',
          `${existing.operation} on a business without grant answered alike for an id of that business and an unknown id (the grant comes first)`,
          `existing id ${existing.answer}, unknown id ${unknown.answer}`,
          existing.res,
          unknown.res,
        );
      }
      // Operations answering one grant decision differently: a warning (concealment per operation is not excluded).
      const distinct = [...new Set(answers.map((a) => a.answer))];
      if (distinct.length > 1) {
        const first = answers.find((a) => a.answer === distinct[0])!;
        const second = answers.find((a) => a.answer === distinct[1])!;
        t.fail('AUTH-GRANT-UNIFORM', 'every read of one business without grant refused alike', list, first.res, second.res);
      }
    },
  );

  check(
    {
      id: 'grant-refusal-every-query-form',
      title:
        "With a valid token, every read of the spec that takes query parameters (the recipient listing), on a business without grant and naming the caller's own resource: sent plainly, then once with each query parameter as a granted caller sends it (a cursor the run was issued, a page size, a filter value): each form refused as the plain one (or 400 validation_failed for the query), never by a later step",
      requirements: ['AUTH-ORDER', 'AUTH-GRANT'],
      needs: ['businessId', 'otherBusinessId'],
      // Per row: the plain request, one per query parameter, and the run's own listing (for the values it shows).
      maxRequests: QUERY_ROWS.reduce((n, row) => n + 2 + row.query.length, 0),
    },
    async (t) => {
      // 5.6: the grant on the path's business comes first, and 5.7 makes that business a selector:
      // nothing else the request carries (a cursor signed for the caller's own business, a page
      // size, a filter) moves the decision to another business or past the grant, so each form of
      // a refused request is refused alike. A query may be validated first (AUTH-VALIDATION-ORDER:
      // a cursor is bound to its business, 4.3), so a 400 validation_failed is the one other answer.
      // (blind10-listing-grant-from-cursor checked the grant on the business a cursor was issued for.)
      const other = t.fixture('otherBusinessId');
      const answers: string[] = [];
      for (const row of QUERY_ROWS) {
        const fixture = row.resourceParam ? RESOURCE_FIXTURES[row.resourceParam]?.own : undefined;
        const resourceId = row.resourceParam ? ((fixture ? (t.config.fixtures[fixture] as string | undefined) : undefined) ?? randomUuidV7(t, `auth/query-forms/${row.resourceParam}`)) : undefined;
        const path = pathOf(row, other, resourceId);
        const plain = await t.api.send({ method: row.method, path });
        const plainAnswer = `${plain.status} ${codeOf(plain.json) ?? ''}`.trim();
        if (!isProblem(plain, 403, 'permission_denied') && !isProblem(plain, 404, 'resource_not_found')) {
          t.note(`${row.operation} on a business without grant answered ${describeResponse(plain)} plainly: its refusal is judged by grant-before-resource, its query forms not compared`);
          continue;
        }
        answers.push(`${row.operation} plainly: ${plainAnswer}`);
        for (const q of row.query) {
          const { value, missing } = await queryValue(t, row, q.name);
          if (value === undefined) {
            t.note(`${row.operation} ?${q.name} not sent: ${missing ?? 'no value'}`);
            continue;
          }
          const res = await t.api.send({ method: row.method, path, query: [[sentName(t, q.name), value]] });
          const answer = `${res.status} ${codeOf(res.json) ?? ''}`.trim();
          answers.push(`${queryShown(q.name, value)}: ${answer}`);
          if (isProblem(res, 400, 'validation_failed')) continue;
          t.expect(
            answer === plainAnswer,
            'AUTH-ORDER',
            `${row.operation} on a business without grant, with ${queryShown(q.name, value)}: refused as without it (${plainAnswer}), or 400 validation_failed for the query`,
            `${answer}: the query moved the refusal to another step than the grant on the path's business`,
            plain,
            res,
          );
        }
      }
      t.note(`a business without grant, each form of the request: ${answers.join('; ') || 'none sent'}`);
    },
  );

  check(
    {
      id: 'granted-after-refusals',
      title:
        "Every read of the spec on the business, first as each caller refused there (the other business's application: no grant; the limited application where the read names the permission it lacks), then as the primary application: each refused, and the primary's read still 2xx (a refusal decides nothing for the next caller)",
      requirements: ['AUTH-GRANT', 'AUTH-PERMISSION', 'CONC-OTHER-BUSINESS-PATH', 'WAL-RETRIEVE', 'BULK-RETRIEVE', 'SCH-LISTING-ENVELOPE', 'MSG-RETRIEVE'],
      needs: ['businessId', 'primaryApp'],
      uses: ['otherApp', 'limitedApp', 'messageId', 'expiredCursorBulkId'],
      maxRequests: grantedAfterRefusalsCost(),
    },
    // 5.6: grant and permission are the calling application's, decided on every call; the order
    // opposite to grant-before-resource's (blind8-wallet-refusal-cached-per-business).
    (t) => runGrantedAfterRefusals(t),
  );

  check(
    {
      id: 'ungranted-vs-unknown-business',
      title: 'With a valid token, the wallet of an existing business without grant and of a business that exists nowhere: both refused (403 or 404) alike, so the answer does not tell which businesses exist',
      requirements: ['AUTH-BUSINESS-SELECTOR', 'CONC-MAY-CONCEAL', 'CONC-OTHER-BUSINESS-PATH'],
      needs: ['otherBusinessId'],
      maxRequests: 2,
    },
    async (t) => {
      const other = t.fixture('otherBusinessId');
      const existing = await t.api.send({ method: 'GET', path: paths.walletBalance(other) });
      const unknown = await t.api.send({ method: 'GET', path: paths.walletBalance(randomUuidV7(t, 'auth/unknown-business')) });
      for (const res of [existing, unknown]) {
        expectProblem(t, res, { status: [403, 404], codes: ['permission_denied', 'resource_not_found'], requirement: 'AUTH-BUSINESS-SELECTOR', why: 'no grant on the business' });
      }
      t.note(`existing business without grant: ${describeResponse(existing)}; unknown business: ${describeResponse(unknown)}`);
      // 5.6 puts the grant before anything else and 5.8 answers a missing grant with 403, or 404 to
      // conceal: a business that exists nowhere has no grant either, so only telling the two apart
      // (403 for one, 404 for the other) breaks it, and it tells a caller which businesses exist.
      t.expect(
        existing.status === unknown.status && codeOf(existing.json) === codeOf(unknown.json),
        'CONC-OTHER-BUSINESS-PATH',
        'an existing business without grant and one that exists nowhere refused alike',
        `existing: ${describeResponse(existing)}; exists nowhere: ${describeResponse(unknown)}`,
        existing,
        unknown,
      );
    },
  );

  check(
    {
      id: 'validation-vs-grant-order',
      title: 'With a valid token, an invalid request on a business without grant (page size 0; in profile full also an empty submission body): 400 validation_failed or 403/404, recorded, never 2xx or 5xx',
      requirements: ['AUTH-VALIDATION-ORDER', 'AUTH-GRANT', 'PROB-NO-5XX-FOR-CLIENT-FAULT'],
      needs: ['otherBusinessId'],
      maxRequests: 2,
      writes: 'submits an empty bulk SMS body on a business without grant',
      readsInSafe: true,
    },
    async (t) => {
      const other = t.fixture('otherBusinessId');
      const requests: Array<{ what: string; request: ApiRequest }> = [
        {
          what: 'page size 0',
          request: { method: 'GET', path: paths.bulkRecipients(other, randomUuidV7(t, 'auth/order/bulk')), query: [[t.config.params.limit, '0']] },
        },
      ];
      if (t.config.settings.profile !== 'safe') {
        requests.push({
          what: 'an empty submission body',
          request: { method: 'POST', path: paths.bulkMessages(other), headers: { 'Idempotency-Key': t.api.idempotencyKey('auth-order') }, json: {} },
        });
      }
      for (const { what, request } of requests) {
        const res = await t.api.send(request);
        if (!expectNoServerFault(t, res, `${what} on a business without grant`)) continue;
        // waiver: a 2xx for page size 0 or an empty body needs the grant and the input validation both broken; a one-rule grant defect stops at 400 here (a missing grant's 2xx is proven at grant-before-resource)
        t.expect(res.status >= 300, 'AUTH-GRANT', `no 2xx for ${what} on a business without grant`, describeResponse(res), res);
        expectProblem(t, res, {
          status: [400, 403, 404],
          codes: ['validation_failed', 'permission_denied', 'resource_not_found'],
          requirement: 'AUTH-VALIDATION-ORDER',
          why: `${what} on a business without grant: either check may come first`,
        });
        t.reading('invalid-and-unauthorized', res.status === 400 ? 'validation-first' : 'authorization-first', what);
      }
    },
  );

  check(
    {
      id: 'permission-403',
      title: 'The application granted on the business without wallet.balance.read reads the wallet: 403 permission_denied',
      requirements: ['AUTH-PERMISSION', 'AUTH-ORDER'],
      needs: ['businessId', 'limitedApp'],
      maxRequests: 1,
    },
    async (t) => {
      const businessId = t.fixture('businessId');
      const res = await t.api.send({ method: 'GET', path: paths.walletBalance(businessId), as: 'limited' });
      expectProblem(t, res, { status: 403, codes: ['permission_denied'], requirement: 'AUTH-PERMISSION', why: 'wallet.balance.read missing' });
    },
  );

  check(
    {
      id: 'unauthorized-sender-403',
      title: 'A valid submission from a sender not authorized for the business: 403 sender_not_authorized (or permission_denied), never 2xx',
      requirements: ['AUTH-SENDER'],
      needs: ['businessId', 'unauthorizedSenderId', 'recipients'],
      maxRequests: 1,
      writes: 'creates a bulk SMS',
    },
    async (t) => {
      const businessId = t.fixture('businessId');
      const sender = t.fixture('unauthorizedSenderId');
      const to = t.fixture('recipients')[0]!;
      const res = await t.api.send({
        method: 'POST',
        path: paths.bulkMessages(businessId),
        headers: { 'Idempotency-Key': t.api.idempotencyKey('auth-sender') },
        json: { from: sender, classification: 'transactional', message: 'conformance sender check', recipients: [{ to }] },
      });
      expectProblem(t, res, { status: 403, codes: ['sender_not_authorized', 'permission_denied'], requirement: 'AUTH-SENDER', why: 'sender not authorized for the business' });
      t.reading('sender-code', codeOf(res.json) === 'permission_denied' ? 'permission-denied' : 'sender-not-authorized');
    },
  );

  check(
    {
      id: 'token-wrong-secret-refused',
      title: 'While the application holds a valid token, the token endpoint with the client id and a wrong secret as Basic credentials: refused (4xx), no access token',
      requirements: ['AUTH-TOKEN-BASIC'],
      needs: ['primaryApp'],
      maxRequests: 1,
    },
    async (t) => {
      const app = t.app('primary');
      // 5.1: every request authenticates, also while the client holds a valid token (blind6-token-client-auth-cached
      // trusted a client id for the life of its last token): the run's own token first, fetched here
      // if no earlier check did (on a host's schedule, or this check alone, none may have).
      await t.api.token('primary').catch((error: unknown) => t.note(`the application's own token could not be had first: ${(error as Error).message}`));
      const res = await t.api.tokenEndpoint({
        authorization: basicOf(app.clientId, `${app.clientSecret}-wrong`),
        form: { grant_type: 'client_credentials', audience: t.config.target.audience },
      });
      const issued = (res.json as { access_token?: unknown } | undefined)?.access_token;
      t.expect(res.status >= 400 && res.status < 500 && issued === undefined, 'AUTH-TOKEN-BASIC', 'a 4xx refusal without access_token (RFC 6749 invalid_client)', `${res.status}${issued === undefined ? '' : ' with an access_token'}`, res);
      const error = (res.json as { error?: unknown } | undefined)?.error;
      t.note(`a wrong secret answered ${res.status}${typeof error === 'string' ? ` ${error}` : ''}`);
    },
  );

  check(
    {
      id: 'token-basic-accepted',
      title: 'While the application holds a valid token, the token endpoint with the client credentials as Basic (client_credentials grant): 200 with a new access token that reads the wallet and, as a JWT, names the audience',
      requirements: ['AUTH-TOKEN-BASIC', 'AUTH-TOKEN-CLIENT-CREDENTIALS', 'AUTH-AUDIENCE'],
      needs: ['primaryApp'],
      maxRequests: 2,
    },
    async (t) => {
      const app = t.app('primary');
      // 5.1: a client-credentials request gets a token whatever the client already holds
      // (token-reissue-refused, token-reissue-unpublished-key: a request while the last token is
      // still valid refused, or answered with a token the API does not take). The run's own token
      // first, fetched here if no earlier check did, so this request is always such a re-issue.
      await t.api.token('primary').catch((error: unknown) => t.note(`the application's own token could not be had first: ${(error as Error).message}`));
      const res = await t.api.tokenEndpoint({
        authorization: basicOf(app.clientId, app.clientSecret),
        form: { grant_type: 'client_credentials', audience: t.config.target.audience },
      });
      const token = (res.json as { access_token?: unknown } | undefined)?.access_token;
      t.expect(res.status === 200 && typeof token === 'string' && token.length > 0, 'AUTH-TOKEN-CLIENT-CREDENTIALS', '200 with an access_token', `${res.status}`, res);
      const aud = audienceOf(token as string);
      if (aud === undefined) t.note('the access token is opaque (not a JWT); its audience cannot be read');
      else t.expect(aud.includes(t.config.target.audience), 'AUTH-AUDIENCE', `aud containing ${t.config.target.audience}`, `aud ${JSON.stringify(aud)}`, res);
      const businessId = t.config.fixtures.businessId;
      if (businessId) {
        const read = await t.api.send({ method: 'GET', path: paths.walletBalance(businessId), as: { bearer: token as string } });
        // Any answer but 401 shows the token authenticated (the wallet may be down or rate limited).
        t.expect(read.status !== 401, 'AUTH-TOKEN-CLIENT-CREDENTIALS', 'the new token authenticates the wallet read (any answer but 401)', describeResponse(read), read);
        t.note(`the wallet read with the new token answered ${describeResponse(read)}`);
      }
    },
  );

  // The authorization matrix's submission row once the run has used its key (a creation names no resource).
  const submission = writeRowOn(undefined);
  check(
    {
      id: 'refusals-after-submission',
      title:
        "After the run's own accepted submission (the primary application on its business), the same submission with that used Idempotency-Key, and every read naming the bulk it created (the bulk, its listing), without a token, with an invalid token, as the other business's application, and under the other business: each refused as on a fresh target (401; 403 or 404 without grant or ownership), never the replayed 202 or the new bulk",
      requirements: ['AUTH-ALL-OPERATIONS', 'AUTH-401-MISSING', 'AUTH-401-INVALID', 'CONC-OTHER-BUSINESS-PATH', 'CONC-FOREIGN-OBJECT', 'CONC-NO-FOREIGN-DATA'],
      needs: ['businessId', 'senderId', 'primaryApp'],
      needsOnHost: ['recipients'],
      uses: ['otherApp', 'otherBusinessId'],
      maxRequests: 1 + afterWriteCost(submission),
      writes: 'submits one bulk SMS, then sends its used key where only a refusal is right (no token, another business\'s application) and reads the new bulk as those callers',
    },
    async (t) => {
      // 4 / 5: a stored response is the caller's to replay, and no caller without a token or a grant
      // is one (blind6: the idempotency layer, ahead of authentication, replayed by business and key).
      // The object the run just created is one no fixture names: every read of it is refused alike
      // (blind7-fresh-bulk-readable-without-token: a public status route served a fresh bulk).
      const own = await sendOwnWrite(t, submission);
      if (own.res.status < 200 || own.res.status >= 300) t.skip(`the submission was not accepted (${describeResponse(own.res)}), so no key was used; the submission's own checks judge it`);
      await runMatrixAfterWrite(t, submission, own.key, undefined, own.created);
    },
  );

  // The authorization matrix's columns without a valid token (its other columns: concealment).
  declareMatrixColumns(check, ['no-token', 'invalid-token']);
});
