// idempotency: the Idempotency-Key of bulk submission (4.0, 4.1 rules 2-6, 8).
import * as fc from 'fast-check';
import type { ApiResponse, Caller } from '../harness/client.ts';
import { boundsOf, headerBoundaryCaseArbs } from '../generators/boundaries.ts';
import { recipientCountBounds } from '../generators/bulk-request.ts';
import { templateValueMaxLength } from '../generators/domain.ts';
import { parameterSchema } from '../generators/parameters.ts';
import { componentSchema } from '../generators/domain.ts';
import { differentVariantKinds, equalVariantsArb, nearEqualReady, nearEqualVariants, type DifferentVariant, type NearEqualVariant } from '../generators/equivalence.ts';
import type { CheckContext } from './support/check.ts';
import { describe } from './support/declare.ts';
import { checksFor } from './support/check.ts';
import {
  bodiesWithCount,
  bodyOptions,
  bulkIdOf,
  createdDuring,
  isSandbox,
  maxPollReads,
  pollUntilCompleted,
  submitAccepted,
  submitBulk,
  validBodies,
  type BulkRequestBody,
} from './support/bulk.ts';
import { describeResponse, expectNoServerFault, expectProblem, isProblem } from './support/problem.ts';
import { forAll, generate } from './support/property.ts';
import { advanceClock } from './support/control.ts';
import { differences, sameResponse } from './support/replay.ts';
import { jsonSchemaFor } from '../spec/validators.ts';
import { randomUuidV7 } from './support/random-ids.ts';

const check = checksFor('idempotency', { needs: ['businessId', 'senderId'], needsOnHost: ['recipients'] });

/** What every check here sends: submissions (profile safe skips them all). */
const CREATES = 'creates a bulk SMS';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The classifications of the document (2.1), for a body of the other one. */
const CLASSIFICATIONS = (jsonSchemaFor('MessageClassification') as { enum: string[] }).enum;

/** One-field changes conflict-one-field-changed sends at most: each reachable field of two bodies. */
const CONFLICT_CASES = 14;

/**
 * Near-equal changes it sends at most, one request each under a key already bound: four per
 * free-text member (message, a template variable value, from; see generators/equivalence.ts).
 */
const NEAR_EQUAL_CASES = 12;

/** The longest message the document allows (4.1, 8). */
const MESSAGE_MAX = boundsOf('CreateSmsBulkMessageRequest').find((b) => b.pointer === '/message' && b.keyword === 'maxLength')!.limit;

/** Entries of conflict-at-far-end's template-based body, and of its message-based one where a real telephone is reached. */
const FAR_END_FEW = 3;

/** `text` cut or repeated to `length` plain characters, its last character one `lastChanged` swaps. */
function filled(text: string, length: number): string {
  const plain = [...text].filter((c) => /^[A-Za-wz0-9 ]$/.test(c));
  const chars = plain.length > 0 ? plain : [...'far end '];
  return Array.from({ length: length - 1 }, (_, i) => chars[i % chars.length]!).join('') + 'x';
}

/** `text` with its last character changed (x and y: no normaliser makes them equal). */
const lastChanged = (text: string) => `${text.slice(0, -1)}${text.endsWith('x') ? 'y' : 'x'}`;

/**
 * The longest body of a content kind the run may send (every free-text member at its longest) and
 * changes at its far end: the last character of the free-text member that ends the body as a client
 * writes it (the message; the last entry's last template variable), and the last entry's number,
 * which ends it when the members are sorted.
 */
function farEndCases(body: BulkRequestBody, pool: readonly string[] | undefined): { body: BulkRequestBody; changes: Array<{ pointer: string; body: BulkRequestBody }> } {
  const valueMax = templateValueMaxLength();
  const recipients = body.recipients.map((r) => (r.template_variables ? { ...r, template_variables: Object.fromEntries(Object.entries(r.template_variables).map(([k, v]) => [k, filled(v, valueMax)])) } : r));
  const long: BulkRequestBody = { ...body, ...(body.message !== undefined ? { message: filled(body.message, MESSAGE_MAX) } : {}), recipients };
  const n = recipients.length - 1;
  const last = recipients[n]!;
  const changes: Array<{ pointer: string; body: BulkRequestBody }> = [];
  if (long.message !== undefined) changes.push({ pointer: '/message (its last character)', body: { ...long, message: lastChanged(long.message) } });
  const variable = Object.keys(last.template_variables ?? {}).at(-1);
  if (variable !== undefined) {
    const template_variables = { ...last.template_variables, [variable]: lastChanged(last.template_variables![variable]!) };
    changes.push({ pointer: `/recipients/${n}/template_variables/${variable} (its last character)`, body: { ...long, recipients: recipients.map((r, i) => (i === n ? { ...r, template_variables } : r)) } });
  }
  const other = [...(pool ?? []), ...recipients.map((r) => r.to)].find((to) => to !== last.to);
  if (other !== undefined) changes.push({ pointer: `/recipients/${n}/to`, body: { ...long, recipients: recipients.map((r, i) => (i === n ? { ...r, to: other } : r)) } });
  return { body: long, changes };
}

/** The longest sender identity (2.1), for a sender one character away from the run's. */
const SENDER_MAX = componentSchema('SenderId').maxLength as number;

/** The longest Idempotency-Key the document allows (4.0, 8). */
const KEY_MAX = parameterSchema('createSmsBulkMessage', 'Idempotency-Key', 'header').maxLength as number;
/** Positions (1-based) where key-compared-exactly changes one character: powers of two across the allowed length, and the last. */
const KEY_POSITIONS = [...new Set([...Array.from({ length: Math.floor(Math.log2(KEY_MAX)) - 2 }, (_, i) => 2 ** (i + 3)), KEY_MAX])].filter((n) => n <= KEY_MAX);

/**
 * The body with two different numbers at least, where the pool has them: entries all of one number
 * have no other order, and a host's pool of two numbers gives that body often (defect seed 2062917822
 * hid blind-fingerprint-sorts-recipients that way).
 */
function twoNumbers(body: BulkRequestBody, pool: readonly string[] | undefined): BulkRequestBody {
  const first = body.recipients[0]!.to;
  const other = pool?.find((n) => n !== first);
  if (body.recipients.some((r) => r.to !== first) || other === undefined) return body;
  return { ...body, recipients: body.recipients.map((r, i) => (i === body.recipients.length - 1 ? { ...r, to: other } : r)) };
}

/** A first accepted submission under a fresh key: the original every repeat is compared with. */
async function original(t: CheckContext, body: BulkRequestBody, as: Caller = 'primary') {
  // Setup: its 202 is a bulk-invariants rule; the matrix runs bulk-accepted-201 with idempotency to prove it.
  const first = await submitAccepted(t, body, { as });
  const made = { key: first.key!, response: first.response, id: bulkIdOf(first.response), body };
  if (as === 'primary') {
    earliest ??= { ...made, later: 0 };
    if (earliest.key !== made.key) earliest.later++;
  }
  return made;
}

/**
 * The topic's first original of the primary application and how many originals under other keys
 * followed it: a key is bound for good (4.1 rule 2), not only while few keys came after it.
 */
let earliest: { key: string; body: BulkRequestBody; response: ApiResponse; id: string | undefined; later: number } | undefined;

describe('idempotency (4.0, 4.1 rules 2-6)', () => {
  check(
    {
      id: 'replay-same-body',
      title:
        "POST a body under a key, another body (the other classification, another message) under another key, then the first body again under the first key: the repeat replays the first 202 member by member (status, body with id, message, classification, intake and accepted_at, Location), not the later submission's",
      requirements: ['IDEM-REPLAY', 'IDEM-REPLAY-REQUEST-ID'],
      maxRequests: { perCase: 3, maxCases: 3 },
      writes: CREATES,
    },
    async (t) => {
      // 4.1 rule 3: the original response, however many submissions came between. Another key's
      // acceptance, whose content differs in every member a 202 shows of it, comes before each
      // replay (blind defect blind7-replay-body-shared-object replayed the original id with the
      // application's latest acceptance's message, classification and intake).
      const cases = validBodies(t).chain((body) =>
        fc.tuple(
          fc.constant(body),
          validBodies(t, { content: 'message' })
            .filter((other) => other.message !== body.message)
            .map((other) => ({ ...other, classification: CLASSIFICATIONS.find((c) => c !== body.classification) ?? other.classification })),
        ),
      );
      await forAll(
        t,
        cases,
        async ([body, other]) => {
          const first = await original(t, body);
          await original(t, other);
          const { result: second, created } = await createdDuring(t, () => submitBulk(t, body, { key: first.key }));
          t.expect(
            sameResponse(first.response, second.response),
            'IDEM-REPLAY',
            `the original ${first.response.status} replayed (bulk ${first.id}), after another key's submission`,
            differences(first.response, second.response),
            first.response,
            second.response,
          );
          if (created !== undefined) t.expect(created === 0, 'IDEM-REPLAY', 'no bulk created by the replay', `${created} created`, second.response);
        },
        { maxRuns: 3 },
      );
    },
  );

  check(
    {
      id: 'equivalent-payload-variants',
      title:
        'POST a body, then the same JSON value written otherwise (key order, whitespace, string escapes) under the same key: the original is replayed (409 idempotency_conflict is a warning: a retry serialised anew reads as a reused key), never a new bulk',
      requirements: ['IDEM-EQUIVALENCE', 'IDEM-REPLAY', 'IDEM-KEY-PERMANENT', 'IDEM-EQUIVALENT-REPLAYED'],
      maxRequests: { perCase: 2, maxCases: 6 },
      writes: CREATES,
    },
    async (t) => {
      // Raw texts from the generators, never the byte-identical one (replay-same-body sends that).
      const cases = validBodies(t).chain((body) => fc.tuple(fc.constant(body), equalVariantsArb(body, { distinct: true })));
      await forAll(
        t,
        cases,
        async ([body, variant]) => {
          const first = await original(t, body);
          const { result: repeat, created } = await createdDuring(t, () =>
            submitBulk(t, undefined, { key: first.key, rawBody: variant }),
          );
          const res = repeat.response;
          if (res.status === 409) {
            // waiver: a 409 fails here only by a code other than idempotency_conflict, itself a break of the section 7 code table (PROB-CODE-STATUS), so no one-rule defect reaches it; the 409's code is proven at the conflict check
            expectProblem(t, res, { status: 409, codes: ['idempotency_conflict'], requirement: 'IDEM-REPLAY' });
            t.reading('equivalent-json', 'conflict', 'equal JSON written otherwise under the same key', first.response, res);
          } else {
            // Anything else must be the original response again; a second bulk for one key never is.
            const newId = bulkIdOf(res);
            if (res.status >= 200 && res.status < 300 && newId !== undefined && newId !== first.id) {
              t.fail('IDEM-KEY-PERMANENT', `the original bulk ${first.id} replayed, or 409 idempotency_conflict`, `a new bulk ${newId} (${res.status})`, first.response, res);
            }
            t.expect(
              sameResponse(first.response, res),
              'IDEM-REPLAY',
              `the original 202 of bulk ${first.id} replayed, or 409 idempotency_conflict`,
              differences(first.response, res),
              first.response,
              res,
            );
            t.reading('equivalent-json', 'replay');
          }
          if (created !== undefined) t.expect(created === 0, 'IDEM-KEY-PERMANENT', 'no bulk created by the repeat', `${created} created`, res);
        },
        { maxRuns: 6 },
      );
    },
  );

  check(
    {
      id: 'conflict-one-field-changed',
      title:
        'POST a body, then a body differing in one field under the same key: 409 idempotency_conflict, no Location, nothing created, the key still replays the original; also for each free-text member changed so that only a normaliser (white space, letter case, full width) would call it the same (decomposed to NFD: 409 or the replay, a reading); the topic\'s first key, read once its bulk completed, still replays',
      requirements: ['IDEM-CONFLICT', 'IDEM-KEY-PERMANENT', 'PROB-NO-5XX-FOR-CLIENT-FAULT'],
      // Three per change, one per near-equal change, and the topic's first key read until completed and repeated.
      maxRequests: (run) => 3 * CONFLICT_CASES + NEAR_EQUAL_CASES + maxPollReads(run) + 1,
      writes: CREATES,
    },
    async (t) => {
      // Valid bodies one field away (the run's sender and recipients; template variables of template
      // bodies): no fixture names a second authorized sender or active template, so neither is changed.
      // Every field a change can reach is changed once, in a message-based and (with a template
      // fixture) a template-based body: the whole payload is the fingerprint, none of it sampled
      // (blind defect blind-fingerprint-ignores-variables left the template variables out).
      // A sender other than the run's makes the payload differ whether or not the business may use
      // it (blind defect blind4-fingerprint-ignores-from left from out of the fingerprint): with no
      // second authorized sender named, one that is refused is sent, and its refusal (403
      // sender_not_authorized, the document does not order it before the key) is a not-replay too.
      const f = t.config.fixtures;
      const sender = f.senderId ?? '';
      const otherSender = `${sender.slice(0, SENDER_MAX - 1)}${sender.endsWith('Z') ? 'Y' : 'Z'}`;
      const options = { ...bodyOptions(t), otherSenderIds: [otherSender] };
      const contents: Array<'message' | 'template'> = f.templateId && f.templatePlaceholders?.length ? ['message', 'template'] : ['message'];
      // Each body's free-text members end in what a normaliser changes (a cased letter, a composed
      // character, a trailing space), so each near-equal change below has something to change.
      const given = [sender, ...(options.pool ?? [])];
      const varied = new Set<string>();
      const bodies = contents.map((content) =>
        // Two entries at least, so their order can change (blind defect blind-fingerprint-sorts-recipients).
        nearEqualReady(twoNumbers(generate(t, validBodies(t, { content, count: { min: 2, max: 5 } }), `conflict ${content} body`), options.pool), given),
      );
      const oneField = bodies.flatMap((body, b) =>
        differentVariantKinds(body, options).map((kind, i) => ({ body, changed: generate(t, kind, `conflict ${contents[b]} change ${i}`) as DifferentVariant | NearEqualVariant })),
      );
      // Different JSON values that trimming, case folding or Unicode normalisation would make equal
      // (blind defect blind6-fingerprint-normalizes-message-whitespace): still another payload.
      const near = bodies.flatMap((body) => {
        const variants = nearEqualVariants(body, varied);
        for (const v of variants) varied.add(v.location);
        return variants.map((changed) => ({ body, changed }));
      });
      const cases = [...oneField.slice(0, CONFLICT_CASES), ...near.slice(0, NEAR_EQUAL_CASES)];
      // Each body's latest original: a near-equal repeat goes to its key (one request, not three; the
      // latest, so a key forgotten after ten others, blind4-key-lru-eviction, is met by the first key's repeat below).
      const bound = new Map<BulkRequestBody, Awaited<ReturnType<typeof original>>>();
      for (const { body, changed } of cases) {
        const near = 'change' in changed ? changed.change : undefined;
        const first = (near !== undefined && bound.get(body)) || (await original(t, body));
        bound.set(body, first);
        const { result: second, created } = await createdDuring(t, () => submitBulk(t, changed.body, { key: first.key }));
        const res = second.response;
        t.evidence(first.response);
        const senderChanged = changed.pointer === '/from';
        // Composition alone (NFD of NFC text) is the same text to a reader: a replay of the original is the other reading.
        if (near === 'decomposed (NFD)' && res.status < 300) {
          t.expect(sameResponse(first.response, res) && (created ?? 0) === 0, 'IDEM-CONFLICT', `409, or the original response of bulk ${first.id} replayed for canonically equal text`, differences(first.response, res), first.response, res);
          t.reading('canonically-equal-text', 'replay', `${changed.pointer} decomposed (NFD) under the same key`, first.response, res);
          continue;
        }
        if (near === 'decomposed (NFD)') t.reading('canonically-equal-text', 'conflict');
        // Section 7: a conflicting repeat is the caller's fault, the first on its key or a later one
        // (blind defect blind7-second-conflict-500 answered the second with 500).
        if (!expectNoServerFault(t, res, `a conflicting repeat (${changed.pointer} changed) under the key of bulk ${first.id}`)) continue;
        expectProblem(t, res, {
          status: senderChanged ? [409, 403] : 409,
          codes: senderChanged ? ['idempotency_conflict', 'sender_not_authorized'] : ['idempotency_conflict'],
          requirement: 'IDEM-CONFLICT',
          why: `4.1 rule 4: ${changed.pointer} changed${near ? ` (${near}: another JSON value, whatever a normaliser makes of it)` : ''}`,
        });
        t.expect(res.headers['location'] === undefined, 'IDEM-CONFLICT', 'no Location on the 409', `Location ${res.headers['location']}`, res);
        if (created !== undefined) t.expect(created === 0, 'IDEM-CONFLICT', 'no bulk created by the conflicting repeat', `${created} created`, res);
        if (near !== undefined) continue;
        const again = await submitBulk(t, body, { key: first.key });
        t.expect(
          sameResponse(first.response, again.response),
          'IDEM-KEY-PERMANENT',
          `the key still replays bulk ${first.id} after the conflict`,
          differences(first.response, again.response),
          first.response,
          again.response,
        );
      }
      t.note(`one-field changes sent: ${cases.map((c) => ('change' in c.changed ? `${c.changed.pointer} (${c.changed.change})` : c.changed.pointer)).join(', ')}`);
      // The topic's first key, after every original since (a dozen keys or more): still replayed
      // (blind defect blind4-key-lru-eviction kept the application's last ten keys only), and after
      // a read showed its bulk completed: a key is bound whatever the bulk's lifecycle did meanwhile
      // (blind defect blind6-key-freed-when-bulk-completes dropped the record with the finished job).
      if (earliest && earliest.later > 0) {
        const { key, body, response, id, later } = earliest;
        const lifecycle = id === undefined ? undefined : await pollUntilCompleted(t, id);
        if (lifecycle) t.note(`bulk ${id} ${lifecycle.completed ? 'read completed' : `last read ${String(lifecycle.final?.body.status ?? lifecycle.unexpected?.status)}`} before its key was repeated`);
        const res = (await submitBulk(t, body, { key })).response;
        const newId = res.status >= 200 && res.status < 300 ? bulkIdOf(res) : undefined;
        // One assertion: a new bulk is one way the replay differs (the message names it first).
        const found = newId !== undefined && newId !== id ? `a new bulk ${newId} (${res.status})` : differences(response, res);
        t.expect(sameResponse(response, res), 'IDEM-KEY-PERMANENT', `the topic's first key replaying bulk ${id} after ${later} other key(s)`, found, response, res);
      }
    },
  );

  check(
    {
      id: 'conflict-at-far-end',
      title:
        'POST the longest body the run may send, once per content kind (a message of the longest allowed length, 1000 entries where a sandbox takes them; template variable values of the longest allowed length), then under the same key that body changed at its far end only (the last character of the message or of the last entry\'s last variable, the last entry\'s number): 409 idempotency_conflict each, never the replay',
      requirements: ['IDEM-CONFLICT'],
      // Per content kind: the original and two changes.
      maxRequests: 3 * 2,
      writes: CREATES,
    },
    async (t) => {
      // 4.1 rule 4: the whole payload is compared, however long (blind defect
      // blind9-fingerprint-first-kilobyte kept the first 1024 characters of the canonical payload,
      // the width of its column, and replayed a body changed past them). Each change is at the far
      // end of the longest body the run may send, so a fingerprint cut at any width below the
      // body's length, or a member cut below its longest allowed value, misses it.
      const f = t.config.fixtures;
      const pool = bodyOptions(t).pool;
      const contents: Array<'message' | 'template'> = f.templateId && f.templatePlaceholders?.length ? ['message', 'template'] : ['message'];
      for (const content of contents) {
        // A message's entries are short: the most a sandbox takes; template entries carry long values, so a few.
        const count = content === 'message' && isSandbox(t.config) ? recipientCountBounds().max : FAR_END_FEW;
        const generated = twoNumbers(generate(t, bodiesWithCount(t, count, { content }), `far-end ${content} body`), pool);
        const { body, changes } = farEndCases(generated, pool);
        const first = await original(t, body);
        for (const changed of changes.slice(0, 2)) {
          const res = (await submitBulk(t, changed.body, { key: first.key })).response;
          t.evidence(first.response);
          expectProblem(t, res, {
            status: 409,
            codes: ['idempotency_conflict'],
            requirement: 'IDEM-CONFLICT',
            why: `4.1 rule 4: ${changed.pointer} changed, at the end of a ${content}-based body of ${JSON.stringify(body).length} characters and ${body.recipients.length} entries`,
          });
        }
      }
    },
  );

  check(
    {
      id: 'key-missing',
      title: 'POST a valid body without Idempotency-Key: 400 validation_failed and nothing created',
      requirements: ['IDEM-KEY-REQUIRED'],
      maxRequests: 1,
      writes: CREATES,
    },
    async (t) => {
      const body = generate(t, validBodies(t), 'key-missing');
      const { result, created } = await createdDuring(t, () => submitBulk(t, body, { key: null }));
      expectProblem(t, result.response, { status: 400, codes: ['validation_failed'], requirement: 'IDEM-KEY-REQUIRED' });
      if (created !== undefined) t.expect(created === 0, 'IDEM-KEY-REQUIRED', 'nothing created', `${created} bulk(s) created`, result.response);
    },
  );

  check(
    {
      id: 'key-length-bounds',
      title: 'POST with an Idempotency-Key of 0 or 257 characters: 400 validation_failed; of 1 or 256 characters: 202',
      requirements: ['IDEM-KEY-LENGTH'],
      // The four Idempotency-Key boundary cases of the generators.
      maxRequests: 4,
      writes: CREATES,
    },
    async (t) => {
      const runPrefix = t.api.idempotencyKey('len');
      const cases = headerBoundaryCaseArbs(runPrefix);
      const names = Object.keys(cases).filter((n) => n.startsWith('Idempotency-Key'));
      // waiver: counts the checker's own generator cases; no server answer is involved
      t.expect(names.length >= 4, 'IDEM-KEY-LENGTH', 'four Idempotency-Key boundary cases from the generators', `${names.length}`);
      for (const name of names) {
        const c = generate(t, cases[name]!, name);
        const key = c.request.headers?.['Idempotency-Key'] ?? null;
        const body = generate(t, validBodies(t), `key-length ${name}`);
        const { result, created } = await createdDuring(t, () => submitBulk(t, body, { key }));
        const res = result.response;
        if (c.expectation === 'accept' && key !== null && !key.startsWith(runPrefix) && !t.config.target.embedded) {
          // A key too short to carry the run id may have been used by an earlier run on a host that
          // keeps keys forever (4.1 rule 2): a replay or a conflict is then right; only a refusal of its length is wrong.
          t.expect(
            res.status === 202 || isProblem(res, 409, 'idempotency_conflict'),
            'IDEM-KEY-LENGTH',
            `202 or 409 idempotency_conflict (the key may be an earlier run's) for ${c.name}, not a refusal of its length`,
            describeResponse(res),
            res,
          );
          t.note(`${c.name}: ${describeResponse(res)}`);
        } else if (c.expectation === 'accept') {
          t.expect(res.status === 202, 'IDEM-KEY-LENGTH', `202 for ${c.name}`, describeResponse(res), res);
        } else {
          expectProblem(t, res, { status: 400, codes: ['validation_failed'], requirement: 'IDEM-KEY-LENGTH', why: c.name });
          if (created !== undefined) t.expect(created === 0, 'IDEM-KEY-LENGTH', `nothing created for ${c.name}`, `${created} created`, res);
        }
      }
    },
  );

  check(
    {
      id: 'scope-per-application',
      title:
        'The primary application POSTs under a key; then the same key and body on a business it has no grant on: the grant refusal (403 permission_denied, or 404 concealing it), never the replay; then the limited application POSTs the same key and body: a separate scope, so a new bulk, neither replay nor conflict',
      requirements: ['IDEM-SCOPE'],
      // A business without grant: the configured one, or a random id (no grant on it either).
      uses: ['limitedApp', 'otherBusinessId'],
      maxRequests: 3,
      writes: CREATES,
    },
    async (t) => {
      const body = generate(t, validBodies(t), 'scope');
      const first = await original(t, body);
      // 4.1 rule 2: the scope is (application, business, operation, key), and 5 rule 6 puts the
      // grant for {businessId} before anything the operation does: the key used on the run's
      // business is unknown on a business the caller has no grant on, and the grant refuses it
      // (blind defect blind8-replay-lookup-ignores-business looked keys up by application and key
      // alone, before the grant, and replayed the first business's 202). Bulk submission is the only
      // operation taking the key (4.0), so no other operation's scope is tried.
      const otherBusiness = t.config.fixtures.otherBusinessId ?? randomUuidV7(t, 'idempotency/scope/other-business');
      const elsewhere = (await submitBulk(t, body, { key: first.key, business: otherBusiness })).response;
      if (expectNoServerFault(t, elsewhere, `the key of bulk ${first.id} on business ${otherBusiness} (no grant)`)) {
        t.expect(
          !sameResponse(first.response, elsewhere) && (bulkIdOf(elsewhere) === undefined || bulkIdOf(elsewhere) !== first.id),
          'IDEM-SCOPE',
          `not the replay of bulk ${first.id}: the key is in another scope on business ${otherBusiness}`,
          describeResponse(elsewhere),
          first.response,
          elsewhere,
        );
        expectProblem(t, elsewhere, {
          status: [403, 404],
          // Which 403 code comes first is auth-ordering's to judge; here only the refusal counts.
          codes: ['permission_denied', 'sender_not_authorized', 'resource_not_found'],
          requirement: 'IDEM-SCOPE',
          why: `5 rule 6: no grant on business ${otherBusiness}, whatever key the request carries`,
        });
      }
      if (t.config.apps.limited === undefined) {
        t.note('no limited application configured: the scope per application is not tried');
        return;
      }
      const other = await submitBulk(t, body, { key: first.key, as: 'limited' });
      const res = other.response;
      if (res.status === 403 || res.status === 404) {
        t.skip(`the limited application may not submit bulks on this target (${res.status} ${String((res.json as { code?: unknown })?.code)}); the scope cannot be observed`);
      }
      t.expect(
        res.status === 202,
        'IDEM-SCOPE',
        'a 202 for the other application (its own scope)',
        describeResponse(res),
        first.response,
        res,
      );
      t.expect(
        bulkIdOf(res) !== undefined && bulkIdOf(res) !== first.id,
        'IDEM-SCOPE',
        `a bulk of its own, not the primary application's ${first.id}`,
        `bulk ${bulkIdOf(res)}`,
        first.response,
        res,
      );
    },
  );

  check(
    {
      id: 'key-compared-exactly',
      title:
        'POST under a key of the longest allowed length, then the same body under that key with its letter case changed, and other bodies under keys differing from it in one character only, at positions across the allowed length: each another key, so a new bulk (202 with its own id), neither replay nor conflict',
      requirements: ['IDEM-SCOPE'],
      maxRequests: 2 + KEY_POSITIONS.length,
      writes: CREATES,
    },
    async (t) => {
      // Blind defects blind-key-case-insensitive and blind-key-compared-64: a key is a string
      // compared as sent, every character of it (4.0 allows up to KEY_MAX); two keys that differ
      // anywhere are two operations of the client, and folding or cutting them replays one
      // submission as another's or refuses it as a conflict.
      const [body, ...others] = generate(t, fc.tuple(validBodies(t), ...KEY_POSITIONS.map(() => validBodies(t))), 'key compared');
      const prefix = `${t.api.idempotencyKey('case')}-Kx`;
      const key = prefix.padEnd(KEY_MAX, 'k');
      const firstUnderKey = await submitAccepted(t, body!, { key });
      const firstId = bulkIdOf(firstUnderKey.response);
      const swapped = [...key].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
      // Each key differs from the first in one character only; the other bodies make a key taken
      // for the first one show as a conflict, the same body as a replay. The same body under the
      // case-changed key is also a new operation with the content of a recent acceptance: a new key
      // is a new scope, nothing to refuse as a duplicate (blind defect blind8-duplicate-send-guard-409
      // answered it 409 idempotency_conflict).
      const variants = [
        { what: 'its letter case changed', other: swapped, repeat: body! },
        ...KEY_POSITIONS.map((n, i) => ({ what: `character ${n} changed`, other: `${key.slice(0, n - 1)}${key[n - 1] === 'k' ? 'm' : 'k'}${key.slice(n)}`, repeat: others[i]! })),
      ];
      for (const { what, other, repeat } of variants) {
        const res = (await submitBulk(t, repeat, { key: other })).response;
        t.expect(res.status === 202, 'IDEM-SCOPE', `a 202 for the key with ${what} (another key)`, describeResponse(res), firstUnderKey.response, res);
        t.expect(bulkIdOf(res) !== undefined && bulkIdOf(res) !== firstId, 'IDEM-SCOPE', `a bulk of its own for the key with ${what}, not ${firstId}`, `bulk ${bulkIdOf(res)}`, firstUnderKey.response, res);
      }
    },
  );

  check(
    {
      id: 'concurrent-same-key',
      title: 'POST the same key and body four times at once: whatever the answers, no 5xx and never two different bulks',
      requirements: ['IDEM-CONCURRENT', 'IDEM-KEY-PERMANENT', 'PROB-NO-5XX-FOR-CLIENT-FAULT'],
      maxRequests: 4,
      writes: CREATES,
    },
    async (t) => {
      const body = generate(t, validBodies(t), 'concurrent');
      const key = t.api.idempotencyKey('concurrent');
      const responses = (await Promise.all([0, 1, 2, 3].map(() => submitBulk(t, body, { key })))).map((s) => s.response);
      t.note(`answers: ${responses.map((r) => `${r.status}${bulkIdOf(r) ? ` ${bulkIdOf(r)}` : ''}`).join(', ')}`);
      for (const r of responses) expectNoServerFault(t, r, 'concurrent same-key submissions');
      const ids = new Set(responses.filter((r) => r.status >= 200 && r.status < 300).map(bulkIdOf));
      t.expect(ids.size <= 1, 'IDEM-KEY-PERMANENT', 'at most one bulk for one key', `${ids.size} bulks: ${[...ids].join(', ')}`, ...responses);
    },
  );

  // Runs last: it moves the embedded reference's clock a week ahead.
  check(
    {
      id: 'seven-day-window',
      title:
        'On the embedded reference: a repeat 6 days 23 hours later replays; after 7 days the key never creates a new bulk (the same body or another)',
      requirements: ['IDEM-WINDOW', 'IDEM-NO-REUSE-AFTER-EXPIRY'],
      maxRequests: 4,
      writes: CREATES,
      embeddedOnly: { needs: 'control', why: 'needs time travel: only the embedded reference offers a clock to advance; a real host cannot wait seven days' },
    },
    async (t) => {
      const [body, other] = generate(t, fc.tuple(validBodies(t), validBodies(t)), 'window');
      const first = await original(t, body);

      await advanceClock(t, 7 * DAY_MS - 60 * 60 * 1000);
      const within = await submitBulk(t, body, { key: first.key });
      t.expect(
        sameResponse(first.response, within.response),
        'IDEM-WINDOW',
        `bulk ${first.id} replayed 6 days 23 hours later`,
        differences(first.response, within.response),
        first.response,
        within.response,
      );

      await advanceClock(t, 2 * 60 * 60 * 1000);
      for (const [label, repeat] of [
        ['the same body', body],
        ['another body', other],
      ] as const) {
        const { result, created } = await createdDuring(t, () => submitBulk(t, repeat, { key: first.key }));
        const res = result.response;
        const answer = res.status === 409 ? 'conflict' : res.status < 300 ? 'replay' : 'refused';
        if (res.status < 500) t.reading('key-after-expiry', answer, `${label}: ${describeResponse(res)}`);
        t.expect(res.status < 500, 'IDEM-NO-REUSE-AFTER-EXPIRY', `no 5xx for ${label} after the window`, describeResponse(res), res);
        const newId = res.status >= 200 && res.status < 300 ? bulkIdOf(res) : undefined;
        t.expect(
          newId === undefined || newId === first.id,
          'IDEM-NO-REUSE-AFTER-EXPIRY',
          `no new bulk for ${label} after the window (a refusal, or bulk ${first.id} replayed)`,
          `new bulk ${newId}`,
          first.response,
          res,
        );
        if (created !== undefined) t.expect(created === 0, 'IDEM-NO-REUSE-AFTER-EXPIRY', `nothing created for ${label}`, `${created} created`, res);
      }
    },
  );
});
