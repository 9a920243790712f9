// Grant and concealment (section 4.4, 5): nothing of a business without grant
// (CONFORMANCE_OTHER_BUSINESS_ID) is served, its refusals do not depend on whether the resource
// exists, and another business's message, bulk, row or endpoint named under one's own business
// stays hidden, refused like an id that exists nowhere. Which business owns an object comes from
// the env file's fixtures and from the answers that showed it (ownership.ts: the checker's other
// tenant included), so a run's own log shows it without an env file too.
import { codeOf, describe, EvidenceHold, kept, objectOf, type Held, type JudgeContext, type Observed } from '../context.ts';
import type { RequirementId } from '../../spec/requirement-ids.ts';
import { STATE_LIMIT, type CheckDef, type Reducer, type Verdicts } from '../verdicts.ts';
import { namedObject, OWNERS_LIMIT, type ObjectKind, type Ownership } from './ownership.ts';
import { requestDefects } from './request-validity.ts';
import type { ServerClock } from './server-clock.ts';

/** The authorization matrix's other tenant (marked by a header): its answers show owners, and are never the ones judged. */
export const fromOtherTenant = (o: Observed) => o.ex.request.headers['x-conformance-caller'] === 'other-tenant';

const GRANT = 'traffic/concealment/no-grant-refused';
const ORDER = 'traffic/auth-ordering/grant-before-resource';
const FOREIGN = 'traffic/concealment/foreign-resources';

export const checks: CheckDef[] = [
  { id: GRANT, topic: 'concealment', title: 'no operation on the business without grant (CONFORMANCE_OTHER_BUSINESS_ID) answers 2xx', requirements: ['CONC-OTHER-BUSINESS-PATH', 'AUTH-GRANT', 'WAL-GRANT', 'HOOK-FORBIDDEN'] },
  { id: ORDER, topic: 'auth-ordering', title: 'on a business without grant, one operation refuses alike whatever the id (the grant is checked before the resource), and operations agree', requirements: ['AUTH-ORDER', 'AUTH-GRANT-UNIFORM'] },
  { id: FOREIGN, topic: 'concealment', title: "another business's message (404 resource_not_found, like an unknown id), bulk, row or webhook endpoint named under one's own business, through any operation, is never served, and is refused like an id that exists nowhere", requirements: ['CONC-CROSS-BUSINESS-MESSAGE', 'CONC-SAME-AS-MISSING', 'CONC-CROSS-BUSINESS-BULK', 'HOOK-OWNERSHIP', 'CONC-FOREIGN-OBJECT', 'CONC-FOREIGN-LIKE-UNKNOWN'] },
];

const ruleOnOther: Record<string, RequirementId> = {
  getWalletBalance: 'WAL-GRANT',
  deactivateWebhookEndpoint: 'HOOK-FORBIDDEN',
  getSmsMessage: 'CONC-OTHER-BUSINESS-PATH',
  getSmsBulkMessage: 'CONC-OTHER-BUSINESS-PATH',
};

const answer = (o: Observed) => `${o.status} ${codeOf(o) ?? ''}`.trim();

/** The rule an object of another business served under one's own breaks, by what it was shown as and what it is named as. */
function servedRule(owned: ObjectKind, named: ObjectKind): RequirementId {
  if (owned === 'bulk' && named === 'bulk') return 'CONC-CROSS-BUSINESS-BULK';
  if (owned === 'message' && named === 'message') return 'CONC-CROSS-BUSINESS-MESSAGE';
  if (owned === 'endpoint' && named === 'endpoint') return 'HOOK-OWNERSHIP';
  return 'CONC-FOREIGN-OBJECT';
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/**
 * What a refusal tells a client, the ids it names left out (a detail may name the id asked for):
 * status, code, members, title and detail. A foreign object's refusal must tell nothing an unknown
 * id's does not.
 */
function refusalShape(o: Observed, members: string): string {
  const body = objectOf(o.json) ?? {};
  const text = (x: unknown) => (typeof x === 'string' ? x.replace(UUID, '<id>') : JSON.stringify(x ?? null));
  return [answer(o), members, text(body.title), text(body.detail)].join(' | ');
}

const membersOf = (o: Observed) => Object.keys(objectOf(o.json) ?? {}).sort().join(',');

/** Refusals of one operation under one business with one shape: a few of the ids that got it. */
interface Shape {
  at: number;
  shape: string;
  answer: string;
  /** The body's member names, sorted. */
  members: string;
  /** Their exchanges in one hold for all keys (only evidence reads them: what finish compares is above). */
  ids: Array<{ id: string; held: Held }>;
}

/** Refusals of one operation under one business. */
interface Refusals {
  operationId: string;
  business: string;
  /** The first, held whole: a verdict's evidence when those it names were let go. */
  first: Observed;
  shapes: Map<string, Shape>;
}
const IDS_PER_SHAPE = 4;
const SHAPES_PER_KEY = 8;

export function start(v: Verdicts, ctx: JudgeContext, _clock: ServerClock, owners: Ownership): Reducer {
  const { otherBusinessId, foreignMessageId, foreignBulkId, foreignWebhookEndpointId } = ctx.fixtures;
  const byOperation = new Map<string, Observed>();
  /** Operation and business -> the distinct refusals of the ids it named (whether each id is foreign is told at the end, with all the owners the traffic showed). */
  const refusals = new Map<string, Refusals>();
  const heldRefusals = new EvidenceHold(STATE_LIMIT);
  let refusalsDropped = 0;
  const foreignTo = (id: string, business: string) => owners.foreignTo(id, business);
  // Served under one business what the traffic showed another's (the other tenant's answer is never the one judged).
  owners.onServed((owner, o, id, named) => {
    if (otherBusinessId !== undefined && o.op!.params.businessId === otherBusinessId) return; // the grant rule's
    const shown = owner.shown?.o;
    const evidence = !shown ? [o] : fromOtherTenant(o) ? [o, shown] : [shown, o];
    const where = owner.shown ? `shown under ${owner.business}${shown ? '' : ` by ${owner.shown.source}, an answer no longer held`}` : 'the env file says so';
    const what = owner.kind === 'row' ? 'recipient row' : owner.kind;
    v.fail(FOREIGN, servedRule(owner.kind, named), `the ${what} ${id} served under its own business only (${where}), refused under any other`, `${describe(o)} under ${o.op!.params.businessId}${fromOtherTenant(o) ? ' (to the other tenant: one of the two answers is wrong)' : ''}`, evidence);
  });
  const see = (o: Observed): void => {
    if (!o.op || o.pacing || o.auth !== 'bearer' || o.status === 401) return;
    const { businessId: pathBusiness, messageId, bulkMessageId, endpointId } = o.op.params;
    if (otherBusinessId !== undefined && pathBusiness === otherBusinessId) {
      const ok = o.status >= 200 && o.status < 300;
      v.judge(GRANT, ruleOnOther[o.op.operationId] ?? 'AUTH-GRANT', 'a refusal (403 permission_denied or 404 resource_not_found)', ok ? describe(o) : undefined, [o]);
      // 400 is the validation-first reading of a request that is also invalid; it says nothing of order.
      if (!ok && o.status !== 400) {
        const first = byOperation.get(o.op.operationId);
        if (!first) byOperation.set(o.op.operationId, o);
        else v.judge(ORDER, 'AUTH-ORDER', `${answer(first)} as for the other id of ${o.op.operationId}`, answer(first) === answer(o) ? undefined : answer(o), [first, o]);
      }
      return;
    }
    const named = namedObject(o);
    if (!named || pathBusiness === undefined) return;
    // A 2xx serving another business's object is told by the owners (ownership.ts), once they have seen the answer.
    if (o.status >= 200 && o.status < 300) return;
    const owner = foreignTo(named.id, pathBusiness);
    // 4.4 names the answer for another business's message: 404 resource_not_found.
    if (o.op.operationId === 'getSmsMessage' && foreignMessageId !== undefined && messageId === foreignMessageId) {
      v.judge(FOREIGN, 'CONC-CROSS-BUSINESS-MESSAGE', '404 resource_not_found', o.status === 404 && codeOf(o) === 'resource_not_found' ? undefined : describe(o), [o]);
    } else if (owner || (bulkMessageId !== undefined && bulkMessageId === foreignBulkId) || (endpointId !== undefined && endpointId === foreignWebhookEndpointId)) v.pass(FOREIGN);
    // A refusal for the request's own fault (400 validation first) says nothing of the object.
    if (o.status === 400 || requestDefects(o, ctx).length > 0 || !o.responseKnown) return;
    const key = `${o.op.operationId} ${pathBusiness}`;
    let shapes = refusals.get(key)?.shapes;
    if (!shapes) {
      if (refusals.size >= STATE_LIMIT) {
        refusalsDropped += 1;
        return;
      }
      refusals.set(key, { operationId: o.op.operationId, business: pathBusiness, first: kept(o), shapes: (shapes = new Map()) });
    }
    const members = membersOf(o);
    const shape = refusalShape(o, members);
    let seen = shapes.get(shape);
    if (!seen) {
      if (shapes.size >= SHAPES_PER_KEY) return;
      shapes.set(shape, (seen = { at: v.at, shape, answer: answer(o), members, ids: [] }));
    }
    if (seen.ids.length < IDS_PER_SHAPE && !seen.ids.some((x) => x.id === named.id)) seen.ids.push({ id: named.id, held: heldRefusals.hold(o) });
  };
  const finish = () => {
    // Within one operation and business, another business's object is refused like an id that exists nowhere.
    for (const { operationId, business, first, shapes } of refusals.values()) {
      const classified = [...shapes.values()].map((s) => ({
        s,
        foreign: s.ids.find((x) => foreignTo(x.id, business) !== undefined),
        unknown: s.ids.find((x) => owners.ownerOf(x.id) === undefined),
      }));
      const missingIn = classified.find((c) => c.unknown);
      if (!missingIn) continue;
      const missing = missingIn.unknown!;
      const m = missingIn.s;
      for (const c of classified) {
        if (!c.foreign) continue;
        const f = c.s;
        const rule: RequirementId = operationId === 'getSmsMessage' ? 'CONC-SAME-AS-MISSING' : 'CONC-FOREIGN-LIKE-UNKNOWN';
        const differs = f.answer !== m.answer ? f.answer : f.members !== m.members ? `members ${f.members} where an unknown id gets ${m.members}` : `${f.shape}, where an unknown id gets ${m.shape}`;
        const both = [missing.held, c.foreign.held];
        const letGo = both.filter((h) => !h.o).map((h) => h.source);
        const said = letGo.length > 0 ? `${differs} (${letGo.join(', ')}: no longer held)` : differs;
        const evidence = both.flatMap((h) => (h.o ? [h.o] : []));
        v.judge(FOREIGN, rule, `the answer an id that exists nowhere gets from ${operationId} (${m.answer}, the same members, title and detail)`, f === m ? undefined : said, evidence.length > 0 ? evidence : [first]);
      }
    }
    const distinct = new Map([...byOperation.values()].map((o) => [answer(o), o]));
    if (distinct.size > 1) {
      const [a, b] = [...distinct.values()];
      v.fail(ORDER, 'AUTH-GRANT-UNIFORM', `one refusal on every operation for a business without grant (${answer(a!)})`, `${answer(b!)} on ${b!.op!.operationId}`, [a!, b!]);
    }
  };
  return {
    see,
    finish,
    forgotten: () => [
      { check: FOREIGN, what: 'operations and businesses whose refusals are compared', limit: STATE_LIMIT, count: refusalsDropped },
      { check: FOREIGN, what: 'object ids whose owning business the traffic showed', limit: OWNERS_LIMIT, count: owners.dropped },
    ],
  };
}
