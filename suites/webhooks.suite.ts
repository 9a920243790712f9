// webhooks: deactivation of a webhook endpoint (3.4, 4.6). Deactivation changes the target, so
// every check here declares it (`writes`) and is skipped in the safe profile. The refusals run
// first, while the configured endpoint is still active; then the endpoint is deactivated once and
// deactivated again, and the authorization matrix's refusals of the deactivation are sent again
// against the state it left.
import type { ApiResponse } from '../harness/client.ts';
import { describe } from './support/declare.ts';
import { checksFor, type CheckContext } from './support/check.ts';
import { hasControl, webhookEndpointState } from './support/control.ts';
import { paths } from './support/paths.ts';
import { describeResponse, expectNoServerFault, expectProblem, problemViolations, viewOfApiResponse } from './support/problem.ts';
import { randomUuidV7 } from './support/random-ids.ts';
import { spendFixture, spentReason, spentRecord } from './support/spend.ts';
import { RESOURCE_FIXTURES, afterWriteCost, resourceKinds, writeRowOn } from './support/authorization.ts';
import { runMatrixAfterWrite } from './support/matrix-run.ts';

const isSuccess = (res: ApiResponse) => res.status >= 200 && res.status < 300;

// The one deactivation of the configured endpoint is shared (`deactivateOnce`).
const check = checksFor('webhooks', { shared: 1 });

const DEACTIVATES = 'deactivates a webhook endpoint';

/** The authorization matrix's row of the configured endpoint's kind: its deactivation. */
const DEACTIVATION = writeRowOn('webhookEndpointId');

/** The other kinds of object the spec's paths name by id (a message, a bulk SMS): the business's own ids of them are no endpoint ids. */
const OTHER_KINDS = resourceKinds().filter((kind) => kind !== DEACTIVATION.resourceParam && RESOURCE_FIXTURES[kind] !== undefined);

/** Against a real host the client deactivates nothing but the configured endpoint (harness/safety.ts). */
const ONLY_CONFIGURED = 'against a real host the run only ever sends DELETE for the configured endpoint';

function configuredEndpoint(t: CheckContext): { businessId: string; endpointId: string } {
  return { businessId: t.fixture('businessId'), endpointId: t.fixture('webhookEndpointId') };
}

/** Fails `requirement` when the reference reports the endpoint deactivated although the request was refused. */
async function expectStillActive(t: CheckContext, endpointId: string, requirement: 'HOOK-FORBIDDEN' | 'HOOK-OWNERSHIP', res: ApiResponse): Promise<void> {
  if (!hasControl(t)) return;
  const state = await webhookEndpointState(t, endpointId);
  if (state && !state.active) t.fail(requirement, 'the endpoint still active after a refused deactivation', 'the endpoint was deactivated', res);
}

let firstDeactivation: Promise<{ res: ApiResponse; requestId: string }> | undefined;

/** The one deactivation of the configured endpoint this run makes (shared by the checks after it). */
function deactivateOnce(t: CheckContext, businessId: string, endpointId: string): Promise<{ res: ApiResponse; requestId: string }> {
  firstDeactivation ??= (async () => {
    const requestId = `${t.config.settings.runId}-deactivate`.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 128);
    const res = await t.api.send({
      method: 'DELETE',
      path: paths.webhookEndpoint(businessId, endpointId),
      headers: { 'x-request-id': requestId },
    });
    // Deactivated (a 200 too, which deactivate-204 judges): the next run on this host takes the next endpoint.
    if (isSuccess(res)) spendFixture(t, 'webhookEndpointId', endpointId);
    return { res, requestId };
  })();
  return firstDeactivation;
}

/** DELETE of the other business's endpoint under the caller's business: refused, the endpoint still active (5.6). */
async function foreignDeactivationRefused(t: CheckContext, businessId: string) {
  const foreignId = t.fixture('foreignWebhookEndpointId');
  const res = await t.api.send({ method: 'DELETE', path: paths.webhookEndpoint(businessId, foreignId) });
  expectProblem(t, res, {
    status: [404, 403],
    codes: ['resource_not_found', 'permission_denied'],
    requirement: 'HOOK-OWNERSHIP',
    why: "5.6: the endpoint is not the business's own",
  });
  await expectStillActive(t, foreignId, 'HOOK-OWNERSHIP', res);
  return res;
}

describe('webhooks (3.4, 4.6)', () => {
  check(
    {
      id: 'other-business-refused',
      title: 'DELETE the configured endpoint under a business the application has no grant on: 403 permission_denied (or 404 resource_not_found), the endpoint stays active',
      requirements: ['HOOK-FORBIDDEN'],
      needs: ['businessId', 'webhookEndpointId', 'otherBusinessId'],
      maxRequests: 1,
      writes: DEACTIVATES,
    },
    async (t) => {
      const { endpointId } = configuredEndpoint(t);
      const other = t.fixture('otherBusinessId');
      const res = await t.api.send({ method: 'DELETE', path: paths.webhookEndpoint(other, endpointId) });
      // A host that deactivates on this request has spent the endpoint: later runs must not meet it as active.
      if (isSuccess(res)) spendFixture(t, 'webhookEndpointId', endpointId);
      expectProblem(t, res, {
        status: [403, 404],
        codes: ['permission_denied', 'resource_not_found'],
        requirement: 'HOOK-FORBIDDEN',
        why: '3.4: only an authorized caller deactivates',
      });
      await expectStillActive(t, endpointId, 'HOOK-FORBIDDEN', res);
      t.reading('webhook-no-grant', res.status === 404 ? 'concealed' : 'forbidden');
    },
  );

  check(
    {
      id: 'foreign-endpoint-refused',
      title: "DELETE another business's endpoint under the caller's business: refused (404 resource_not_found or 403), never 204; the endpoint stays active",
      requirements: ['HOOK-OWNERSHIP'],
      needs: ['businessId', 'webhookEndpointId', 'foreignWebhookEndpointId'],
      maxRequests: 1,
      writes: DEACTIVATES,
      sandboxOnly: "a DELETE of another business's endpoint goes to a declared sandbox only",
    },
    async (t) => {
      const { businessId } = configuredEndpoint(t);
      const res = await foreignDeactivationRefused(t, businessId);
      t.note(`another business's endpoint answered with ${describeResponse(res)}`);
    },
  );

  check(
    {
      id: 'random-endpoint-404',
      title: "DELETE an endpoint id that exists nowhere, though all but its random tail is the configured endpoint's, then the business's own id of each other kind of object the spec's paths name (its message, its bulk SMS): 404 resource_not_found, the endpoint stays active",
      requirements: ['HOOK-NOT-FOUND'],
      needs: ['businessId', 'webhookEndpointId'],
      uses: OTHER_KINDS.map((kind) => RESOURCE_FIXTURES[kind]!.own),
      maxRequests: 1 + OTHER_KINDS.length,
      writes: DEACTIVATES,
      embeddedOnly: { needs: 'sandbox', why: `deactivating a random endpoint id: ${ONLY_CONFIGURED}` },
    },
    async (t) => {
      const { businessId, endpointId } = configuredEndpoint(t);
      // An id is matched whole: one that shares the configured endpoint's time and version (its
      // first 18 characters, beyond any short-id prefix) and differs in its random tail names no
      // endpoint (blind defect blind4-webhook-lookup-by-prefix found one by its first 8 characters).
      const random = randomUuidV7(t, 'webhooks/random');
      const near = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-/.test(endpointId) && endpointId.length === random.length ? endpointId.slice(0, 19) + random.slice(19) : random;
      const unknown = near.toLowerCase() === endpointId.toLowerCase() ? random : near;
      const res = await t.api.send({ method: 'DELETE', path: paths.webhookEndpoint(businessId, unknown) });
      // A host that deactivates on this request has spent the endpoint: later runs must not meet it as active.
      if (isSuccess(res)) spendFixture(t, 'webhookEndpointId', endpointId);
      expectProblem(t, res, { status: 404, codes: ['resource_not_found'], requirement: 'HOOK-NOT-FOUND', why: `4.6: no endpoint ${unknown} (the configured one is ${endpointId})` });
      // Blind defect blind8-webhook-any-resource-id-204: a lookup falling back to the business's other
      // objects by id deactivates (or pretends to) an id that names no endpoint; each is one the
      // target itself issued, so none is random.
      for (const kind of OTHER_KINDS) {
        const id = t.config.fixtures[RESOURCE_FIXTURES[kind]!.own] as string | undefined;
        if (!id || id.toLowerCase() === endpointId.toLowerCase()) continue;
        const other = await t.api.send({ method: 'DELETE', path: paths.webhookEndpoint(businessId, id) });
        expectProblem(t, other, { status: 404, codes: ['resource_not_found'], requirement: 'HOOK-NOT-FOUND', why: `4.6: ${id}, the business's ${kind}, names no endpoint` });
      }
    },
  );

  check(
    {
      id: 'deactivate-204',
      title: 'DELETE the configured active endpoint with an X-Request-Id: 204 with an empty body, the request id echoed, the endpoint deactivated',
      requirements: ['HOOK-DEACTIVATE-204', 'HOOK-DEACTIVATE-EFFECT', 'RID-ECHO'],
      needs: ['businessId', 'webhookEndpointId'],
      maxRequests: 0,
      writes: DEACTIVATES,
    },
    async (t) => {
      const { businessId, endpointId } = configuredEndpoint(t);
      if (hasControl(t)) {
        const before = await webhookEndpointState(t, endpointId);
        if (before && !before.active) t.skip('the configured endpoint was already deactivated before this check');
      }
      const { res, requestId } = await deactivateOnce(t, businessId, endpointId);
      // A 404 for an endpoint the ledger says this tool deactivated (another run took it meanwhile, or
      // a request of this run the host should have refused) is that precondition; one it does not know is judged.
      const spent = res.status === 404 ? spentRecord(t, 'webhookEndpointId', endpointId) : undefined;
      if (spent) t.skip(spentReason(spent, 'CONFORMANCE_WEBHOOK_ENDPOINT_ID'));
      const hint = res.status === 404 ? ' (if it was deactivated outside this tool, add an active endpoint to CONFORMANCE_WEBHOOK_ENDPOINT_ID; the ones this tool deactivates are kept in its ledger, CONFORMANCE_STATE_DIR, and skipped)' : '';
      t.expect(res.status === 204, 'HOOK-DEACTIVATE-204', `204 (deactivated)${hint}`, describeResponse(res), res);
      // waiver: HTTP gives a 204 no body; the client reads none (or fails the transport on a Content-Length), so the text is always empty
      t.expect(res.text.length === 0, 'HOOK-DEACTIVATE-204', '204 with an empty body', `a body of ${res.text.length} characters: ${res.text.slice(0, 100)}`, res);
      const echoed = res.headers['x-request-id'];
      t.expect(echoed === requestId, 'RID-ECHO', `X-Request-Id ${requestId}`, `X-Request-Id ${JSON.stringify(echoed ?? null)}`, res);
      if (hasControl(t)) {
        const after = await webhookEndpointState(t, endpointId);
        t.expect(after?.active === false, 'HOOK-DEACTIVATE-EFFECT', 'the endpoint deactivated after the 204 (3.4)', `endpoint state ${JSON.stringify(after ?? null)}`, res);
      }
      if (!t.config.target.embedded) t.note(`deactivated ${endpointId}; recorded as spent, so the next run on this host takes the next of CONFORMANCE_WEBHOOK_ENDPOINT_ID`);
      t.evidence(res);
    },
  );

  check(
    {
      id: 'next-endpoint-deactivated',
      title:
        "Right after the run's deactivation of the configured endpoint, DELETE the next active endpoint of CONFORMANCE_WEBHOOK_ENDPOINT_ID not yet spent (on a host, a declared sandbox only: it spends a second endpoint): 204 with an empty body as for the first, the one deactivation no obstacle to the other",
      requirements: ['HOOK-DEACTIVATE-204'],
      needs: ['businessId', 'webhookEndpointId'],
      maxRequests: 1,
      writes: DEACTIVATES,
      embeddedOnly: { needs: 'sandbox', why: 'a run spends one configured endpoint; only on a declared sandbox does it deactivate a second' },
    },
    async (t) => {
      // Blind defect blind9-webhook-business-lock-409: a deactivation locked the business's webhook
      // configuration for a while, so another active endpoint's deactivation was refused with 409.
      // 3.4: each active endpoint an authorized caller deactivates answers 204, whatever the
      // business's other endpoints went through just before.
      const { businessId, endpointId } = configuredEndpoint(t);
      const ids = t.config.fixtures.webhookEndpointIds ?? [];
      const next = ids.slice(ids.indexOf(endpointId) + 1).find((id) => id.toLowerCase() !== endpointId.toLowerCase() && spentRecord(t, 'webhookEndpointId', id) === undefined);
      if (next === undefined) return t.skip(`CONFORMANCE_WEBHOOK_ENDPOINT_ID names no active endpoint after ${endpointId} not yet spent; list one more to check a second deactivation`);
      const first = await deactivateOnce(t, businessId, endpointId);
      if (first.res.status !== 204) t.skip(`the first deactivation was not a 204 (${describeResponse(first.res)}); see deactivate-204`);
      const res = await t.api.send({ method: 'DELETE', path: paths.webhookEndpoint(businessId, next) });
      // Deactivated: the next run on this host takes another endpoint.
      if (isSuccess(res)) spendFixture(t, 'webhookEndpointId', next);
      t.expect(res.status === 204, 'HOOK-DEACTIVATE-204', `204 for ${next}, an active endpoint of the business, as for ${endpointId} just before`, describeResponse(res), first.res, res);
      if (!t.config.target.embedded) t.note(`deactivated ${next} too; recorded as spent`);
    },
  );

  check(
    {
      id: 'repeat-deactivation',
      title: 'DELETE the configured endpoint a second time: never a 5xx nor a 2xx other than 204; the answer is recorded',
      requirements: ['HOOK-REPEAT', 'HOOK-DEACTIVATE-204', 'PROB-NO-5XX-FOR-CLIENT-FAULT'],
      needs: ['businessId', 'webhookEndpointId'],
      maxRequests: 1,
      writes: DEACTIVATES,
    },
    async (t) => {
      const { businessId, endpointId } = configuredEndpoint(t);
      const first = await deactivateOnce(t, businessId, endpointId);
      if (first.res.status !== 204) t.skip(`the first deactivation was not a 204 (${describeResponse(first.res)}); see deactivate-204`);
      const res = await t.api.send({ method: 'DELETE', path: paths.webhookEndpoint(businessId, endpointId) });
      if (!expectNoServerFault(t, res, 'a repeat deactivation')) return;
      const allowed = res.status === 204 || (res.status >= 400 && res.status < 500);
      t.expect(allowed, 'HOOK-DEACTIVATE-204', '204 again or a 4xx refusal (e.g. 404 resource_not_found)', describeResponse(res), res);
      if (res.status === 204) {
        // waiver: HTTP gives a 204 no body; the client reads none (or fails the transport on a Content-Length), so the text is always empty
        t.expect(res.text.length === 0, 'HOOK-DEACTIVATE-204', '204 with an empty body', `a body of ${res.text.length} characters`, res);
      } else {
        // Which refusal is open; that it is a section 7 problem is not.
        const first = problemViolations(viewOfApiResponse(res), { secrets: t.config.secrets })[0];
        if (first) t.fail(first.requirement, first.expected, first.actual, res);
      }
      t.reading('repeat-deactivation', res.status === 204 ? 'no-content' : 'refused', describeResponse(res));
    },
  );

  check(
    {
      id: 'refusals-after-deactivation',
      title:
        "After the run's own deactivation of the configured endpoint, the authorization matrix's refusals of the deactivation again where that state could change them: the deactivated endpoint under a business without grant and as the other business's application, without a token and with an invalid one; an unknown id and another business's endpoint under the business (on a host, a declared sandbox): each refused as on an active endpoint, never 204",
      requirements: ['HOOK-FORBIDDEN', 'HOOK-NOT-FOUND', 'HOOK-OWNERSHIP', 'AUTH-401-MISSING', 'AUTH-401-INVALID', 'AUTH-ALL-OPERATIONS', 'CONC-NO-FOREIGN-DATA'],
      needs: ['businessId', 'webhookEndpointId', 'primaryApp'],
      uses: ['otherBusinessId', 'otherApp'],
      maxRequests: afterWriteCost(DEACTIVATION),
      writes: DEACTIVATES,
    },
    async (t) => {
      // 3.4 / 5: a deactivated endpoint is no opening (blind6: an unknown id answered 204 once the
      // business deactivated one; a deactivated endpoint answered 204 before the grant was checked),
      // nor is having deactivated one (blind4-webhook-ownership-skipped-after-first: another
      // business's endpoint deactivated once the caller had deactivated one of its own).
      const { businessId, endpointId } = configuredEndpoint(t);
      const first = await deactivateOnce(t, businessId, endpointId);
      if (!isSuccess(first.res)) t.skip(`the configured endpoint was not deactivated (${describeResponse(first.res)}); see deactivate-204`);
      await runMatrixAfterWrite(t, DEACTIVATION, undefined);
    },
  );
});
