// Individual SMS retrieval and webhook deactivation as traffic shows them (sections 2.4, 3.4, 4.4,
// 4.6): a retrieved message is the one asked for, of the business of the path, and a template-based
// one shows rendered text; a deactivation repeated is never a server error.
import { describe, objectOf, type Observed } from '../context.ts';
import { BoundedMap, STATE_LIMIT, type CheckDef, type Reducer, type Verdicts } from '../verdicts.ts';

const MESSAGE = 'traffic/messages/retrieved';
const REPEAT = 'traffic/webhooks/repeat-deactivation';

export const checks: CheckDef[] = [
  { id: MESSAGE, topic: 'messages', title: 'a retrieved individual SMS has the id asked for, the business of the path, and (from a template) no placeholder left in its text', requirements: ['MSG-RETRIEVE', 'MSG-BUSINESS', 'MSG-RENDERED-CONTENT'] },
  { id: REPEAT, topic: 'webhooks', title: 'deactivating an endpoint already deactivated in the traffic is never answered with a server error', requirements: ['HOOK-REPEAT', 'PROB-NO-5XX-FOR-CLIENT-FAULT'] },
];

export function start(v: Verdicts): Reducer {
  /** Endpoints deactivated lately (a day of traffic deactivates without end). */
  const deactivated = new BoundedMap<string, true>(STATE_LIMIT);
  const see = (o: Observed): void => {
    if (!o.op || o.pacing) return;
    const { businessId, messageId, endpointId } = o.op.params;
    if (o.op.operationId === 'getSmsMessage' && o.status === 200) {
      const body = objectOf(o.json);
      if (!body) return;
      v.judge(MESSAGE, 'MSG-RETRIEVE', `the message ${messageId}`, body.id === messageId ? undefined : `id ${String(body.id)}`, [o]);
      v.judge(MESSAGE, 'MSG-BUSINESS', `business_id ${businessId}`, body.business_id === businessId ? undefined : `business_id ${String(body.business_id)}`, [o]);
      if (body.template !== null && body.template !== undefined && typeof body.message === 'string') {
        v.judge(MESSAGE, 'MSG-RENDERED-CONTENT', 'the rendered text, no {{placeholder}} left', /\{\{\s*[\w.-]+\s*\}\}/.test(body.message) ? 'a placeholder in double braces in message' : undefined, [o]);
      }
    }
    if (o.op.operationId === 'deactivateWebhookEndpoint') {
      const key = `${businessId}/${endpointId}`;
      if (deactivated.has(key)) {
        v.judge(REPEAT, 'PROB-NO-5XX-FOR-CLIENT-FAULT', 'a 204 again or a 4xx for a repeated deactivation', o.status >= 500 ? describe(o) : undefined, [o]);
      }
      if (o.status === 204) deactivated.set(key, true);
    }
  };
  return { see, forgotten: () => [{ check: REPEAT, what: 'deactivated webhook endpoints', limit: STATE_LIMIT, count: deactivated.dropped }] };
}
