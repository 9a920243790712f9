// Grant and concealment, given the env file's fixtures (section 4.4, 5): nothing of a business
// without grant (CONFORMANCE_OTHER_BUSINESS_ID) is served, its refusals do not depend on whether
// the resource exists, and another business's message, bulk or endpoint named under one's own
// business stays hidden. Without the fixtures these rules are not observable.
import { codeOf, describe, objectOf, type JudgeContext, type Observed } from '../context.ts';
import type { RequirementId } from '../../spec/requirement-ids.ts';
import { STATE_LIMIT, type CheckDef, type Reducer, type Verdicts } from '../verdicts.ts';

const GRANT = 'traffic/concealment/no-grant-refused';
const ORDER = 'traffic/auth-ordering/grant-before-resource';
const FOREIGN = 'traffic/concealment/foreign-resources';

export const checks: CheckDef[] = [
  { id: GRANT, topic: 'concealment', title: 'no operation on the business without grant (CONFORMANCE_OTHER_BUSINESS_ID) answers 2xx', requirements: ['CONC-OTHER-BUSINESS-PATH', 'AUTH-GRANT', 'WAL-GRANT', 'HOOK-FORBIDDEN'] },
  { id: ORDER, topic: 'auth-ordering', title: 'on a business without grant, one operation refuses alike whatever the id (the grant is checked before the resource), and operations agree', requirements: ['AUTH-ORDER', 'AUTH-GRANT-UNIFORM'] },
  { id: FOREIGN, topic: 'concealment', title: "another business's message (404 resource_not_found, like an unknown id), bulk or webhook endpoint named under one's own business is never served", requirements: ['CONC-CROSS-BUSINESS-MESSAGE', 'CONC-SAME-AS-MISSING', 'CONC-CROSS-BUSINESS-BULK', 'HOOK-OWNERSHIP'] },
];

const ruleOnOther: Record<string, RequirementId> = {
  getWalletBalance: 'WAL-GRANT',
  deactivateWebhookEndpoint: 'HOOK-FORBIDDEN',
  getSmsMessage: 'CONC-OTHER-BUSINESS-PATH',
  getSmsBulkMessage: 'CONC-OTHER-BUSINESS-PATH',
};

const answer = (o: Observed) => `${o.status} ${codeOf(o) ?? ''}`.trim();

export function start(v: Verdicts, ctx: JudgeContext): Reducer {
  const { otherBusinessId, businessId, foreignMessageId, foreignBulkId, foreignWebhookEndpointId } = ctx.fixtures;
  const byOperation = new Map<string, Observed>();
  /** The first unknown message id's answer, and the hidden message's answers to hold against it at the end (bounded). */
  let missing: Observed | undefined;
  const foreignMessage: Observed[] = [];
  let foreignDropped = 0;
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
    if (businessId === undefined || pathBusiness !== businessId) return;
    if (o.op.operationId === 'getSmsMessage') {
      if (foreignMessageId !== undefined && messageId === foreignMessageId) {
        if (foreignMessage.length < STATE_LIMIT) foreignMessage.push(o);
        else foreignDropped += 1;
        v.judge(FOREIGN, 'CONC-CROSS-BUSINESS-MESSAGE', '404 resource_not_found', o.status === 404 && codeOf(o) === 'resource_not_found' ? undefined : describe(o), [o]);
      } else if (o.status === 404) missing ??= o;
    }
    if (o.op.operationId === 'getSmsBulkMessage' && foreignBulkId !== undefined && bulkMessageId === foreignBulkId) {
      v.judge(FOREIGN, 'CONC-CROSS-BUSINESS-BULK', 'a refusal (404 resource_not_found or 403)', o.status >= 200 && o.status < 300 ? describe(o) : undefined, [o]);
    }
    if (o.op.operationId === 'deactivateWebhookEndpoint' && foreignWebhookEndpointId !== undefined && endpointId === foreignWebhookEndpointId) {
      v.judge(FOREIGN, 'HOOK-OWNERSHIP', "a refusal: another business's endpoint is not deactivated", o.status >= 200 && o.status < 300 ? describe(o) : undefined, [o]);
    }
  };
  const finish = () => {
    // The hidden message's answer must look like an unknown id's: same status, code and members.
    for (const o of foreignMessage) {
      if (!missing || o.status >= 200 && o.status < 300) continue;
      const members = (x: Observed) => Object.keys(objectOf(x.json) ?? {}).sort().join(',');
      const differs = answer(o) !== answer(missing) ? answer(o) : members(o) !== members(missing) ? `members ${members(o)} where an unknown id gets ${members(missing)}` : undefined;
      v.judge(FOREIGN, 'CONC-SAME-AS-MISSING', `the answer an unknown message id gets (${answer(missing)})`, differs, [missing, o]);
    }
    const distinct = new Map([...byOperation.values()].map((o) => [answer(o), o]));
    if (distinct.size > 1) {
      const [a, b] = [...distinct.values()];
      v.fail(ORDER, 'AUTH-GRANT-UNIFORM', `one refusal on every operation for a business without grant (${answer(a!)})`, `${answer(b!)} on ${b!.op!.operationId}`, [a!, b!]);
    }
  };
  return { see, finish, forgotten: () => [{ check: FOREIGN, what: "answers of another business's message", limit: STATE_LIMIT, count: foreignDropped }] };
}
