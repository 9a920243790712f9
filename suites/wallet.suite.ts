// wallet: the wallet balance (2.1, 2.5, 4.5). Read many times, since a defect may show on some
// reads only; refused without the grant or the permission; a problem, never invented zeros, when
// the wallet source is down.
import type { ApiResponse } from '../harness/client.ts';
import { validate } from '../spec/validators.ts';
import { CLOCK_TOLERANCE_MS, describeLead, timestampsAfterDate } from './support/timestamps.ts';
import { describe } from './support/declare.ts';
import type { Need } from '../core/variables.ts';
import { checksFor, type CheckContext } from './support/check.ts';
import { maySubmit, submitBulk, validBodies } from './support/bulk.ts';
import { generate } from './support/property.ts';
import { hasControl, withFaults } from './support/control.ts';
import { sameId, spelledAsSent } from './support/ids.ts';
import { paths } from './support/paths.ts';
import { randomUuidV7 } from './support/random-ids.ts';
import { codeOf, describeResponse, expectProblem } from './support/problem.ts';

/** Reads of the balance the read-based checks share. */
const READS = 20;

// The shared reads are sent by whichever check needs them first: no check's own budget holds them.
// (and the two submissions before them: one refused, one putting a bulk in flight).
const check = checksFor('wallet', { shared: READS + 2 });

interface Balance {
  business_id?: unknown;
  business_name?: unknown;
  currency?: unknown;
  current_balance?: unknown;
  available_balance?: unknown;
  reserved_balance?: unknown;
  as_of?: unknown;
}

interface Read {
  res: ApiResponse;
  body: Balance;
}

let shared: Promise<ApiResponse[]> | undefined;

/**
 * The rules of 2.5 hold at every moment, a bulk in flight included (blind defects
 * blind5-wallet-reserved-in-flight, blind5-wallet-available-excludes-in-flight): where the run may
 * submit, one small bulk is accepted right before the reads, so they see the balance while it is
 * queued or processing, whatever else the run does meanwhile.
 */
const IN_FLIGHT = {
  writes: 'submits one small bulk SMS first (to an allowlisted number), so the balance is read while a bulk is in flight, after a refused submission',
  readsInSafe: true,
  uses: ['senderId', 'recipients'] as Need[],
};

/** The business's balance read READS times by the primary application (once per run). */
function sharedReads(t: CheckContext, businessId: string): Promise<ApiResponse[]> {
  shared ??= (async () => {
    if (maySubmit(t)) {
      const body = generate(t, validBodies(t, { count: { min: 1, max: 1 } }), 'wallet/in-flight');
      // A refused submission first (a member 4.1 does not allow): it holds nothing either (blind6-reserved-hold-left-by-refusal
      // held the entries' cost from the body's reading until an acceptance that never came).
      const refused = (await submitBulk(t, undefined, { rawBody: JSON.stringify({ ...body, unexpected_member: true }) })).response;
      const accepted = (await submitBulk(t, body)).response;
      // Their own answers are the bulk topics' to judge; here they only put a refusal behind and a bulk in flight.
      t.note(`the reads follow a refused submission (${refused.status}) and a submission answered ${accepted.status}${accepted.status === 202 ? ' (a bulk in flight)' : ''}`);
    }
    const out: ApiResponse[] = [];
    for (let i = 0; i < READS; i++) out.push(await t.api.send({ method: 'GET', path: paths.walletBalance(businessId) }));
    return out;
  })();
  return shared;
}

/** An answer 4.5 and section 8 allow in place of a balance: the source down, or a rate limit. */
const isUnavailableAnswer = (res: ApiResponse) => res.status === 503 || res.status === 429;

/**
 * The reads that returned a balance; each must be a 200 object. A 503 or 429 handed back (today the
 * client waits each out and sends again) is judged as the problem 4.5 or section 8 names, left out.
 */
async function reads(t: CheckContext): Promise<{ businessId: string; reads: Read[] }> {
  const businessId = t.fixture('businessId');
  const all = await sharedReads(t, businessId);
  const out: Read[] = [];
  for (const [i, res] of all.entries()) {
    if (isUnavailableAnswer(res)) {
      // waiver: unreachable while the client waits out every 429 and 503 and sends again (harness/transport.ts); kept for a client that hands them back
      expectProblem(t, res, { status: [503, 429], codes: ['balance_unavailable', 'service_unavailable', 'rate_limit_exceeded'], requirement: 'WAL-UNAVAILABLE', why: `read ${i + 1}` });
      continue;
    }
    const isObject = res.json !== null && typeof res.json === 'object' && !Array.isArray(res.json);
    t.expect(res.status === 200 && isObject, 'WAL-RETRIEVE', `200 with the wallet balance (read ${i + 1} of ${all.length})`, describeResponse(res), res);
    out.push({ res, body: res.json as Balance });
  }
  if (out.length < all.length) t.note(`${all.length - out.length} of ${all.length} reads answered 503 or 429 (judged as problems)`);
  if (out.length === 0) t.skip(`every one of ${all.length} reads answered 503 or 429: no balance to judge`);
  return { businessId, reads: out };
}

/** Decimal money string to a canonical form (sign, integer digits, fraction without trailing zeros). */
export function canonicalMoney(value: string): string {
  const negative = value.startsWith('-');
  const [int = '0', frac = ''] = value.replace(/^-/, '').split('.');
  const fraction = frac.replace(/0+$/, '');
  const integer = int.replace(/^0+(?=\d)/, '');
  const zero = /^0*$/.test(integer) && fraction === '';
  return `${negative && !zero ? '-' : ''}${integer}${fraction ? `.${fraction}` : ''}`;
}

const isMoney = (v: unknown): v is string => typeof v === 'string' && validate('DecimalMoney', v).length === 0;

describe('wallet (2.1, 2.5, 4.5)', () => {
  check(
    {
      id: 'retrieve-schema',
      title: `GET the wallet balance ${READS} times: 200 each time, with all seven members of 2.5 of their types`,
      requirements: ['WAL-RETRIEVE', 'WAL-SCHEMA', 'WAL-FIELDS-PRESENT'],
      needs: ['businessId'],
      maxRequests: 0,
      ...IN_FLIGHT,
    },
    async (t) => {
      const { reads: all } = await reads(t);
      for (const { res, body } of all) {
        const first = validate('WalletBalance', body)[0];
        if (first) t.fail('WAL-SCHEMA', 'a wallet balance with business_id, business_name, currency, three money strings and as_of', `${first.pointer || '/'} ${first.message}`, res);
      }
      t.evidence(all[0]!.res);
    },
  );

  check(
    {
      id: 'reserved-zero-every-read',
      title: `GET the wallet balance ${READS} times: reserved_balance is zero (0.00) on every read`,
      requirements: ['WAL-RESERVED-ZERO'],
      needs: ['businessId'],
      maxRequests: 0,
      ...IN_FLIGHT,
    },
    async (t) => {
      const { reads: all } = await reads(t);
      const spellings = new Set<string>();
      for (const [i, { res, body }] of all.entries()) {
        const value = body.reserved_balance;
        // Both readings of "always 0.00": the exact string, or any decimal string worth zero.
        const zero = isMoney(value) && canonicalMoney(value) === '0';
        t.expect(zero, 'WAL-RESERVED-ZERO', 'reserved_balance "0.00"', `reserved_balance ${JSON.stringify(value)} on read ${i + 1} of ${all.length}`, res);
        spellings.add(value as string);
      }
      for (const spelling of spellings) t.reading('reserved-spelling', spelling === '0.00' ? 'exact' : 'other-zero', JSON.stringify(spelling));
    },
  );

  check(
    {
      id: 'available-equals-current',
      title: `GET the wallet balance ${READS} times: available_balance is the same amount as current_balance on every read`,
      requirements: ['WAL-AVAILABLE-EQUALS-CURRENT'],
      needs: ['businessId'],
      maxRequests: 0,
      ...IN_FLIGHT,
    },
    async (t) => {
      const { reads: all } = await reads(t);
      let identical = 0;
      for (const [i, { res, body }] of all.entries()) {
        const { available_balance: available, current_balance: current } = body;
        const same = isMoney(available) && isMoney(current) && canonicalMoney(available) === canonicalMoney(current);
        t.expect(
          same,
          'WAL-AVAILABLE-EQUALS-CURRENT',
          `available_balance equal to current_balance ${JSON.stringify(current)}`,
          `available_balance ${JSON.stringify(available)} on read ${i + 1} of ${all.length}`,
          res,
        );
        if (available === current) identical++;
      }
      if (identical === all.length) t.reading('available-spelling', 'identical');
      else t.reading('available-spelling', 'numeric', `identical strings on ${identical} of ${all.length} reads`);
    },
  );

  check(
    {
      id: 'money-strings',
      title: 'GET the wallet balance: current, available and reserved balances are decimal strings, never JSON numbers',
      requirements: ['WAL-MONEY-FORMAT'],
      needs: ['businessId'],
      maxRequests: 0,
      ...IN_FLIGHT,
    },
    async (t) => {
      const { reads: all } = await reads(t);
      for (const { res, body } of all) {
        for (const field of ['current_balance', 'available_balance', 'reserved_balance'] as const) {
          const value = body[field];
          t.expect(isMoney(value), 'WAL-MONEY-FORMAT', `${field} a decimal money string`, `${field} ${JSON.stringify(value)}`, res);
        }
      }
    },
  );

  check(
    {
      id: 'currency-code',
      title: 'GET the wallet balance: currency is three upper-case letters (ISO 4217 alphabetic)',
      requirements: ['WAL-CURRENCY-FORMAT'],
      needs: ['businessId'],
      maxRequests: 0,
      ...IN_FLIGHT,
    },
    async (t) => {
      const { reads: all } = await reads(t);
      const { res, body } = all[0]!;
      const currency = body.currency;
      t.expect(typeof currency === 'string' && /^[A-Z]{3}$/.test(currency), 'WAL-CURRENCY-FORMAT', 'currency of three upper-case letters', `currency ${JSON.stringify(currency)}`, res);
      const known = (Intl as unknown as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.('currency') ?? [];
      if (known.length > 0 && !known.includes(currency as string)) {
        t.advise(`currency ${currency} is not an ISO 4217 code this runtime knows (the list may lag behind ISO)`);
      }
      t.note(`currency ${String(currency)}`);
    },
  );

  check(
    {
      id: 'as-of-utc',
      title: `GET the wallet balance: as_of is an RFC 3339 time in UTC with a Z offset, not after the answer's Date header (tolerance ${CLOCK_TOLERANCE_MS / 60_000} min)`,
      requirements: ['WAL-AS-OF-UTC'],
      needs: ['businessId'],
      maxRequests: 0,
      ...IN_FLIGHT,
    },
    async (t) => {
      const { reads: all } = await reads(t);
      let dated = 0;
      for (const { res, body } of all) {
        t.expect(
          typeof body.as_of === 'string' && validate('Timestamp', body.as_of).length === 0,
          'WAL-AS-OF-UTC',
          'as_of an RFC 3339 UTC time ending in Z',
          `as_of ${JSON.stringify(body.as_of)}`,
          res,
        );
        // A UTC time is the host's clock: a local time labelled Z leads it by its zone's offset
        // (blind defect blind4-wallet-as-of-local-labelled-utc). A snapshot may be old, never ahead.
        if (res.headers['date'] !== undefined) dated++;
        const ahead = timestampsAfterDate({ as_of: body.as_of }, res.headers['date'])[0];
        t.expect(
          ahead === undefined,
          'WAL-AS-OF-UTC',
          `as_of not after the answer's Date header ${res.headers['date']} (tolerance ${CLOCK_TOLERANCE_MS / 60_000} min)`,
          `as_of ${JSON.stringify(body.as_of)}, ${describeLead(ahead?.aheadMs ?? 0)} ahead: a local time labelled Z`,
          res,
        );
      }
      if (dated < all.length) t.note(`${all.length - dated} of ${all.length} reads carried no Date header: as_of not compared with the host's clock there`);
    },
  );

  check(
    {
      id: 'business-of-path',
      title: 'GET the wallet balance: business_id is the business of the path and business_name has 1 to 256 characters',
      requirements: ['WAL-BUSINESS-ID', 'WAL-BUSINESS-NAME-LENGTH'],
      needs: ['businessId'],
      maxRequests: 0,
      ...IN_FLIGHT,
    },
    async (t) => {
      const { businessId, reads: all } = await reads(t);
      for (const { res, body } of all) {
        // 2.5 names the business of the path; 2.1 has clients treat ids as opaque, so the one a client
        // recognises is spelt as it sent it (or in lower case, RFC 9562's output form): the same UUID
        // in upper case is another string to it (blind10-wallet-business-id-upper-case).
        const same = sameId(body.business_id, businessId);
        t.expect(
          spelledAsSent(body.business_id, businessId),
          'WAL-BUSINESS-ID',
          `business_id ${businessId} (as the path spells it, or in lower case)`,
          `business_id ${JSON.stringify(body.business_id)}${same ? ': the same UUID in other letter case, another string to a client treating ids as opaque (2.1)' : ''}`,
          res,
        );
        const name = body.business_name;
        const length = typeof name === 'string' ? [...name].length : -1;
        t.expect(length >= 1 && length <= 256, 'WAL-BUSINESS-NAME-LENGTH', 'business_name of 1 to 256 characters', `business_name ${JSON.stringify(name)}`, res);
      }
    },
  );

  check(
    {
      id: 'permission-required',
      title:
        "GET the wallet balance as the application granted on the business but without wallet.balance.read, right after a read by the primary application, plainly and with the primary read's X-Request-Id: 403 permission_denied both times; the primary application's next read still 200",
      requirements: ['WAL-PERMISSION', 'WAL-RETRIEVE'],
      needs: ['businessId', 'limitedApp'],
      maxRequests: 4,
    },
    async (t) => {
      const businessId = t.fixture('businessId');
      // The permission holds whatever was read before: a balance the primary application just read
      // is still refused to the limited one (blind-wallet-cache-skips-permission served its cache
      // to any granted application, and was caught only where another check had read first).
      // The primary's read carries a request id of the check's own, which the limited application
      // then sends too: 4.0 makes X-Request-Id a correlation value the client chooses, no key to an
      // answer, so the refusal holds for that form of the request as well
      // (blind10-wallet-replay-by-request-id kept answers for retries by request id and path).
      const requestId = `wallet-permission-${randomUuidV7(t, 'wallet/permission/request-id')}`;
      await t.api.send({ method: 'GET', path: paths.walletBalance(businessId), headers: { 'X-Request-Id': requestId } });
      const forms = [
        { how: 'with a request id of its own', headers: {} },
        { how: "with the X-Request-Id of the primary application's read just before", headers: { 'X-Request-Id': requestId } },
      ];
      let res!: ApiResponse;
      for (const form of forms) {
        res = await t.api.send({ method: 'GET', path: paths.walletBalance(businessId), as: 'limited', headers: form.headers });
        expectProblem(t, res, { status: 403, codes: ['permission_denied'], requirement: 'WAL-PERMISSION', why: `4.5: wallet.balance.read missing (${form.how})` });
      }
      // Each caller's own grant and permission decide (5.6): the refusal just given changes nothing of
      // the primary application's next read (blind8-wallet-refusal-cached-per-business).
      const after = await t.api.send({ method: 'GET', path: paths.walletBalance(businessId) });
      if (isUnavailableAnswer(after)) return t.note(`the primary application's read after the refusal answered ${describeResponse(after)} (the source's state, judged by source-unavailable)`);
      t.expect(after.status === 200, 'WAL-RETRIEVE', "200 with the balance for the primary application, after the limited application's refusal", describeResponse(after), res, after);
    },
  );

  check(
    {
      id: 'grant-required',
      title: 'GET the wallet balance of a business the application has no grant on: 403 permission_denied (or a concealing 404 resource_not_found)',
      requirements: ['WAL-GRANT'],
      needs: ['otherBusinessId'],
      maxRequests: 1,
    },
    async (t) => {
      const other = t.fixture('otherBusinessId');
      const res = await t.api.send({ method: 'GET', path: paths.walletBalance(other) });
      expectProblem(t, res, { status: [403, 404], codes: ['permission_denied', 'resource_not_found'], requirement: 'WAL-GRANT', why: '4.5: no grant on the business' });
      t.reading('wallet-no-grant', res.status === 404 ? 'concealed' : 'forbidden');
    },
  );

  check(
    {
      id: 'source-unavailable',
      title: 'GET the wallet balance while the wallet source is down (forced on the embedded reference): 503 balance_unavailable or service_unavailable, never a 200 with invented zeros',
      requirements: ['WAL-UNAVAILABLE', 'WAL-NO-INVENTED-ZEROS', 'PROB-RETRY-AFTER'],
      needs: ['businessId'],
      maxRequests: 1,
    },
    async (t) => {
      const businessId = t.fixture('businessId');
      let res: ApiResponse;
      if (hasControl(t)) {
        res = await withFaults(t, { walletUnavailable: true }, 'an unavailable wallet source', () =>
          t.api.send({ method: 'GET', path: paths.walletBalance(businessId), seePacing: true }),
        );
      } else {
        // Elsewhere the source cannot be switched off: judge a 503 the run's own reads met, if any.
        const observed = (await sharedReads(t, businessId)).find((r) => r.status === 503);
        res = observed ?? t.skip('the wallet source cannot be switched off on this target, and none of the reads met it unavailable', 'not-observable');
      }
      if (res.status === 200) {
        const body = (res.json ?? {}) as Balance;
        const zeros = [body.current_balance, body.available_balance].every((v) => isMoney(v) && canonicalMoney(v) === '0');
        t.fail(
          zeros ? 'WAL-NO-INVENTED-ZEROS' : 'WAL-UNAVAILABLE',
          '503 balance_unavailable or service_unavailable (no balance while the source is down)',
          `200 with current_balance ${JSON.stringify(body.current_balance)}${zeros ? ' (invented zeros)' : ''}`,
          res,
        );
      }
      expectProblem(t, res, { status: 503, codes: ['balance_unavailable', 'service_unavailable'], requirement: 'WAL-UNAVAILABLE', why: '4.5: wallet source unavailable' });
      const code = codeOf(res.json);
      const retryAfter = res.headers['retry-after'];
      t.reading('wallet-down-code', code === 'service_unavailable' ? 'service-unavailable' : 'balance-unavailable', retryAfter === undefined ? 'no Retry-After' : `Retry-After ${retryAfter}`);
      // Section 7 names Retry-After for service_unavailable only (checked in expectProblem).
      if (code === 'balance_unavailable' && retryAfter === undefined) {
        t.advise('503 balance_unavailable without Retry-After: allowed by the document, but clients cannot tell when to retry');
      }
    },
  );
});
