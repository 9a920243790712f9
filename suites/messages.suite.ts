// messages: retrieval of one individual SMS (2.4, 3.2, 4.4).
import { isDeepStrictEqual } from 'node:util';
import type { ApiResponse } from '../harness/client.ts';
import { mayAddress } from '../spec/phone-numbers.ts';
import { enumOf } from '../spec/contract.ts';
import { sameId, spelledAsSent } from './support/ids.ts';
import { isValid, jsonSchemaFor, validate } from '../spec/validators.ts';
import { describe } from './support/declare.ts';
import { checksFor, type CheckContext } from './support/check.ts';
import { paths } from './support/paths.ts';
import { describeResponse, expectProblem, problemViolations, viewOfApiResponse } from './support/problem.ts';
import { randomUuidV7 } from './support/random-ids.ts';
import { isObject } from '../core/json.ts';
import { maySubmit, submitBulk, validBodies } from './support/bulk.ts';
import { generate } from './support/property.ts';

// The one read of the configured message is shared by the checks that judge it.
const check = checksFor('messages', { shared: 1 });

const MESSAGE_STATUSES = enumOf('IndividualMessageStatus');
const TIMESTAMP_FIELDS = ['accepted_at', 'submitted_at', 'delivered_at', 'failed_at'] as const;
/** The members of an individual SMS (2.4). */
const MESSAGE_MEMBERS = Object.keys((jsonSchemaFor('IndividualSmsMessage') as { properties?: object }).properties ?? {});
/** Members of 2.4 that delivery progress moves (its status, why, and when it was submitted, delivered or failed); the rest stay as read. */
const PROGRESS_MEMBERS: ReadonlySet<string> = new Set(['status', 'status_reason', 'submitted_at', 'delivered_at', 'failed_at']);
/** A placeholder as templates write it (4.1 rule 7): a name in double braces. */
const PLACEHOLDER = /\{\{\s*[A-Za-z_][\w.-]*\s*\}\}/g;


interface Configured {
  businessId: string;
  messageId: string;
  res: ApiResponse;
  body: Record<string, unknown>;
}

// The configured message is read once and judged by several checks (keeps the request count low).
let configured: Promise<ApiResponse> | undefined;

/** The configured message as a 200 JSON object; fails MSG-RETRIEVE otherwise, skips without fixtures. */
async function configuredMessage(t: CheckContext): Promise<Configured> {
  const businessId = t.fixture('businessId');
  const messageId = t.fixture('messageId');
  configured ??= t.api.send({ method: 'GET', path: paths.message(businessId, messageId) });
  const res = await configured;
  const isObject = res.json !== null && typeof res.json === 'object' && !Array.isArray(res.json);
  t.expect(res.status === 200 && isObject, 'MSG-RETRIEVE', '200 with the individual SMS', describeResponse(res), res);
  return { businessId, messageId, res, body: res.json as Record<string, unknown> };
}

describe('messages (2.4, 3.2, 4.4)', () => {
  check(
    {
      id: 'configured-message-retrieved',
      title:
        "GET the configured message: 200 with that message, its id equal to the one requested; the same after a lookup under its business found nothing, and after a submission to the message's own number (when allowlisted): every member as first read but delivery progress",
      requirements: ['MSG-RETRIEVE'],
      needs: ['businessId', 'messageId'],
      maxRequests: 5,
      writes: 'submits one small bulk SMS (to an allowlisted number), then reads the message again',
      readsInSafe: true,
      uses: ['senderId', 'recipients'],
    },
    async (t) => {
      const { businessId, messageId, res: first } = await configuredMessage(t);
      // A message stays retrievable whatever the business does next (blind6-message-index-replaced-by-submission
      // rebuilt its message index on each submission, losing the messages accepted before).
      let res = first;
      if (first.status === 200) {
        // A not-found answer is about that id alone (blind7-message-negative-cache-by-business cached
        // it per business, and the business's own message answered 404 after it).
        const missing = await t.api.send({ method: 'GET', path: paths.message(businessId, randomUuidV7(t, 'messages/lookup-before-reread')) });
        res = await t.api.send({ method: 'GET', path: paths.message(businessId, messageId) });
        t.expect(res.status === 200 && isObject(res.json), 'MSG-RETRIEVE', `200 with the individual SMS after a lookup of an unknown id under its business (answered ${missing.status})`, describeResponse(res), first, missing, res);
      }
      if (maySubmit(t) && first.status === 200) {
        // Blind defect blind8-message-shows-latest-to-number: a read is of that message, whatever is
        // sent later to its number (4.4), so the submission goes to the message's own number when the
        // run may send there.
        const to = isObject(first.json) && typeof first.json.to === 'string' ? first.json.to : undefined;
        const own = to !== undefined && (t.config.target.embedded || mayAddress(to, t.config.fixtures.recipients ?? []));
        if (!own) t.note(`the submission goes to another number: the message's number ${to ?? '(not shown)'} is not in the allowlist (CONFORMANCE_RECIPIENTS)`);
        const body = generate(t, validBodies(t, { count: { min: 1, max: 1 }, ...(own ? { pool: [to] } : {}) }), 'messages/after-submission');
        const accepted = (await submitBulk(t, body)).response;
        res = await t.api.send({ method: 'GET', path: paths.message(businessId, messageId) });
        const after = `after a submission${own ? ' to its number' : ''} (answered ${accepted.status})`;
        t.expect(res.status === 200 && isObject(res.json), 'MSG-RETRIEVE', `200 with the individual SMS ${after}`, describeResponse(res), first, res);
        if (isObject(first.json) && isObject(res.json)) {
          const before = first.json;
          const now = res.json;
          // Members of 2.4 only: what else a target shows (an update time, say) the document does not bind.
          // The id is held to the id requested below, which says more than two reads that differ.
          const changed = MESSAGE_MEMBERS.filter((k) => k !== 'id' && !PROGRESS_MEMBERS.has(k) && !isDeepStrictEqual(before[k], now[k]));
          t.expect(
            changed.length === 0,
            'MSG-RETRIEVE',
            `the same message ${after}: every member but delivery progress (${[...PROGRESS_MEMBERS].join(', ')}) as first read`,
            changed.map((k) => `${k} ${JSON.stringify(before[k])} then ${JSON.stringify(now[k])}`).join('; '),
            first,
            accepted,
            res,
          );
        }
      }
      const body = res.json as Record<string, unknown>;
      t.evidence(res);
      // Which members are required is not shown, but a body with none of 2.4's is not the SMS: a
      // client reading `id` or `status` finds nothing (blind6-message-enveloped-in-data wrapped it).
      const members = MESSAGE_MEMBERS;
      const shown = Object.keys(body);
      t.expect(shown.some((k) => members.includes(k)), 'MSG-RETRIEVE', `the individual SMS: members of 2.4 (${members.join(', ')})`, `members ${shown.join(', ') || 'none'}`, res);
      if (body.id === undefined) t.skip('200 with a message that has no id member (which members are required is not shown)', 'not-observable');
      t.expect(sameId(body.id, messageId), 'MSG-RETRIEVE', `id ${messageId}`, `id ${JSON.stringify(body.id)}`, res);
      t.evidence(res);
    },
  );

  check(
    {
      id: 'configured-message-schema',
      title: 'GET the configured message: every member has the type of 2.4 (ids UUIDv7, to E.164, classification, template pin or null, timestamps)',
      requirements: ['MSG-SCHEMA', 'MSG-REQUIRED-FIELDS'],
      needs: ['businessId', 'messageId'],
      maxRequests: 0,
    },
    async (t) => {
      const { res, body } = await configuredMessage(t);
      const failures = validate('IndividualSmsMessage', body);
      const first = failures[0];
      if (first) {
        t.fail('MSG-SCHEMA', 'an individual SMS whose members have their 2.4 types', `${first.pointer || '/'} ${first.message}`, res);
      }
      t.note(`members present: ${Object.keys(body).sort().join(', ')}`);
    },
  );

  check(
    {
      id: 'configured-message-business',
      title: 'GET the configured message: business_id is the business of the path',
      requirements: ['MSG-BUSINESS'],
      needs: ['businessId', 'messageId'],
      maxRequests: 0,
    },
    async (t) => {
      const { businessId, res, body } = await configuredMessage(t);
      if (body.business_id === undefined) t.skip('the message has no business_id member (which members are required is not shown)', 'not-observable');
      // As the wallet's (wallet/business-of-path): the path's id spelt as sent, or in lower case.
      t.expect(
        spelledAsSent(body.business_id, businessId),
        'MSG-BUSINESS',
        `business_id ${businessId} (as the path spells it, or in lower case)`,
        `business_id ${JSON.stringify(body.business_id)}${sameId(body.business_id, businessId) ? ': the same UUID in other letter case, another string to a client treating ids as opaque (2.1)' : ''}`,
        res,
      );
    },
  );

  check(
    {
      id: 'configured-message-status',
      title: 'GET the configured message: status is queued, sent, delivered or failed',
      requirements: ['MSG-STATUS-VALUES'],
      needs: ['businessId', 'messageId'],
      maxRequests: 0,
    },
    async (t) => {
      const { res, body } = await configuredMessage(t);
      if (body.status === undefined) t.skip('the message has no status member (which members are required is not shown)', 'not-observable');
      t.expect(
        isValid('IndividualMessageStatus', body.status),
        'MSG-STATUS-VALUES',
        `status one of ${MESSAGE_STATUSES.join(', ')}`,
        `status ${JSON.stringify(body.status)}`,
        res,
      );
      t.note(`status ${String(body.status)}`);
    },
  );

  check(
    {
      id: 'configured-message-utc-timestamps',
      title: 'GET the configured message: accepted_at and every non-null time are RFC 3339 in UTC with a Z offset',
      requirements: ['SCH-UTC-TIMESTAMPS', 'MSG-SCHEMA'],
      needs: ['businessId', 'messageId'],
      maxRequests: 0,
    },
    async (t) => {
      const { res, body } = await configuredMessage(t);
      let seen = 0;
      for (const field of TIMESTAMP_FIELDS) {
        const value = body[field];
        if (value === undefined || (value === null && field !== 'accepted_at')) continue;
        seen++;
        t.expect(
          isValid('Timestamp', value),
          'SCH-UTC-TIMESTAMPS',
          `${field} an RFC 3339 UTC time ending in Z`,
          `${field} ${JSON.stringify(value)}`,
          res,
        );
      }
      if (seen === 0) t.skip('the message carries no timestamp member to judge', 'not-observable');
    },
  );

  check(
    {
      id: 'configured-message-template-pin',
      title:
        'GET the configured message sent from a template: template pins that template id with a revision id; the same when read again after a message-based submission of the business',
      requirements: ['MSG-TEMPLATE-PIN'],
      needs: ['businessId', 'messageId', 'messageTemplateId'],
      // A message-based submission and a read of the message after it.
      maxRequests: 2,
      writes: 'submits one small message-based bulk SMS, then reads the message again',
      readsInSafe: true,
      uses: ['senderId', 'recipients'],
    },
    async (t) => {
      const templateId = t.fixture('messageTemplateId');
      const { businessId, messageId, res, body } = await configuredMessage(t);
      const judgePin = (message: unknown, read: ApiResponse, when: string, ...evidence: ApiResponse[]) => {
        const pin = (isObject(message) ? message.template : undefined) as { template_id?: unknown; revision_id?: unknown } | null | undefined;
        t.expect(
          pin !== null && typeof pin === 'object' && sameId(pin.template_id, templateId) && typeof pin.revision_id === 'string',
          'MSG-TEMPLATE-PIN',
          `template {"template_id": "${templateId}", "revision_id": …}${when}`,
          `template ${JSON.stringify(pin ?? null)}`,
          ...evidence,
          read,
        );
      };
      judgePin(body, res, '');
      // Blind defect blind10-message-pin-of-latest-submission: a pin read from the business's latest
      // submission, not the message's own. 2.4: a message's pin is the template it was sent from,
      // whatever the business submits next: a message-based submission is made here (never left
      // to another check's schedule) and the message read again.
      if (!maySubmit(t) || res.status !== 200) return;
      const submitted = generate(t, validBodies(t, { content: 'message', count: { min: 1, max: 1 } }), 'messages/pin-after-message-submission');
      const accepted = (await submitBulk(t, submitted)).response;
      const again = await t.api.send({ method: 'GET', path: paths.message(businessId, messageId) });
      if (accepted.status !== 202 || again.status !== 200) {
        t.note(`the pin not read again after a message-based submission: it answered ${describeResponse(accepted)}, the read ${describeResponse(again)}`);
        return;
      }
      judgePin(again.json, again, ` after a message-based submission of the business (answered ${accepted.status})`, accepted);
    },
  );

  check(
    {
      id: 'configured-message-rendered',
      title: 'GET the configured message sent from a template: message is the rendered content, with no {{placeholder}} of the template left in it',
      requirements: ['MSG-RENDERED-CONTENT'],
      needs: ['businessId', 'messageId'],
      maxRequests: 0,
    },
    async (t) => {
      const { res, body } = await configuredMessage(t);
      // Template-based: the message says so (a pin), or the fixture names its template.
      const pinned = body.template !== null && typeof body.template === 'object';
      if (!pinned && !t.config.fixtures.messageTemplateId) {
        t.skip('the configured message shows no template and CONFORMANCE_MESSAGE_TEMPLATE_ID is not set: nothing was rendered');
      }
      const text = typeof body.message === 'string' ? body.message : t.skip('the configured message has no message text (which members are required is not shown)', 'not-observable');
      const left = text.match(PLACEHOLDER) ?? [];
      t.expect(left.length === 0, 'MSG-RENDERED-CONTENT', 'message text with every placeholder rendered', `message ${JSON.stringify(text)} still holds ${left.join(', ')}`, res);
    },
  );

  check(
    {
      id: 'random-message-404',
      title: 'GET a message id that exists nowhere: 404 resource_not_found',
      requirements: ['MSG-NOT-FOUND'],
      needs: ['businessId'],
      maxRequests: 1,
    },
    async (t) => {
      const businessId = t.fixture('businessId');
      const res = await t.api.send({ method: 'GET', path: paths.message(businessId, randomUuidV7(t, 'messages/random')) });
      expectProblem(t, res, { status: 404, codes: ['resource_not_found'], requirement: 'MSG-NOT-FOUND', why: '4.4: no such message' });
    },
  );

  check(
    {
      id: 'other-resource-ids-404',
      title: 'GET as a message the id of each other resource the fixtures name (a bulk SMS, a template, a webhook endpoint, the business): 404 resource_not_found',
      requirements: ['MSG-NOT-FOUND'],
      needs: ['businessId'],
      maxRequests: 4,
    },
    async (t) => {
      // Blind defect blind-message-lookup-finds-bulk: only individual SMS are retrieved here, so an
      // id the business holds for anything else (one table for every SMS, a shared id space) is
      // no message; each id is one the target itself issued, so none is random.
      const f = t.config.fixtures;
      const businessId = t.fixture('businessId');
      const others = Object.entries({ 'bulk SMS': f.expiredCursorBulkId, template: f.templateId, 'webhook endpoint': f.webhookEndpointId, business: businessId })
        .filter((entry): entry is [string, string] => typeof entry[1] === 'string' && isValid('UuidV7', entry[1]) && entry[1] !== f.messageId);
      if (others.length === 0) t.skip('the fixtures name no other resource with a UUIDv7 id');
      for (const [what, id] of others) {
        const res = await t.api.send({ method: 'GET', path: paths.message(businessId, id) });
        expectProblem(t, res, { status: 404, codes: ['resource_not_found'], requirement: 'MSG-NOT-FOUND', why: `4.4: the id of a ${what} is no individual SMS` });
      }
    },
  );

  check(
    {
      id: 'malformed-message-id',
      title: 'GET with a message id that is not a UUIDv7 (free text, a UUIDv4): refused with a 4xx problem, never 2xx or 5xx',
      requirements: ['VAL-PATH-UUIDV7', 'MSG-ERRORS-NOT-SHOWN'],
      needs: ['businessId'],
      maxRequests: 2,
    },
    async (t) => {
      const businessId = t.fixture('businessId');
      const malformed = ['not-a-uuid', '3b241101-e2bb-4255-8caf-4136c566a962'];
      for (const id of malformed) {
        const res = await t.api.send({ method: 'GET', path: paths.message(businessId, id) });
        t.expect(
          res.status >= 400 && res.status < 500,
          'VAL-PATH-UUIDV7',
          `a 4xx refusal for message id ${JSON.stringify(id)} (400 validation_failed or 404 resource_not_found)`,
          describeResponse(res),
          res,
        );
        const first = problemViolations(viewOfApiResponse(res), { secrets: t.config.secrets })[0];
        if (first) t.fail(first.requirement, first.expected, first.actual, res);
        if (res.status === 400 || res.status === 404) t.reading('message-id-malformed', res.status === 404 ? 'not-found' : 'refused', JSON.stringify(id));
        else t.note(`message id ${JSON.stringify(id)}: ${describeResponse(res)}`);
      }
    },
  );
});
