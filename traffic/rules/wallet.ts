// Wallet balance reads (section 2.5, 4.5): reserved zero, available equal to current (as amounts:
// both readings of the document), the business of the path, as_of in UTC.
import { codeOf, describe, objectOf, type JudgeContext, type Observed } from '../context.ts';
import type { CheckDef, Reducer, Verdicts } from '../verdicts.ts';

const ID = 'traffic/wallet/balance-rules';
const PERMISSION = 'traffic/wallet/permission';

export const checks: CheckDef[] = [
  { id: PERMISSION, topic: 'wallet', title: 'the application without wallet.balance.read (CONFORMANCE_LIMITED_CLIENT_ID, known from its tokens) gets 403 permission_denied on the wallet balance', requirements: ['WAL-PERMISSION'] },
  { id: ID, topic: 'wallet', title: 'every wallet balance read shows reserved_balance zero, available_balance equal to current_balance, the business of the path and as_of in UTC', requirements: ['WAL-RESERVED-ZERO', 'WAL-AVAILABLE-EQUALS-CURRENT', 'WAL-BUSINESS-ID', 'WAL-AS-OF-UTC', 'WAL-RETRIEVE'] },
];

/** A decimal money string as a comparable canonical form (`10.50` and `10.5` alike), or undefined. */
export function amount(value: unknown): string | undefined {
  if (typeof value !== 'string' || !/^-?(?:0|[1-9]\d*)(?:\.\d+)?$/.test(value)) return undefined;
  const negative = value.startsWith('-');
  const [whole, fraction = ''] = value.replace(/^-/, '').split('.');
  const trimmed = fraction.replace(/0+$/, '');
  const canonical = trimmed ? `${whole}.${trimmed}` : whole!;
  return negative && canonical !== '0' ? `-${canonical}` : canonical;
}

/** A Date header counts whole seconds, and a front server may stamp it with a clock a little apart (the active checks allow 2 minutes too). */
const DATE_LEEWAY_MS = 120_000;

export function start(v: Verdicts, ctx: JudgeContext): Reducer {
  let lastAsOf: number | undefined;
  const see = (o: Observed): void => {
    if (o.op?.operationId !== 'getWalletBalance' || o.pacing) return;
    // The application without wallet.balance.read (CONFORMANCE_LIMITED_CLIENT_ID) on its granted business.
    if (ctx.limitedApp !== undefined && o.app === ctx.limitedApp && o.op.params.businessId === ctx.fixtures.businessId && o.status !== 401) {
      v.judge(PERMISSION, 'WAL-PERMISSION', '403 permission_denied for the application without wallet.balance.read', o.status === 403 && codeOf(o) === 'permission_denied' ? undefined : describe(o), [o]);
      return;
    }
    if (o.status !== 200) return;
    const body = objectOf(o.json);
    if (!body) return;
    const reserved = amount(body.reserved_balance);
    const current = amount(body.current_balance);
    const available = amount(body.available_balance);
    if (reserved !== undefined) v.judge(ID, 'WAL-RESERVED-ZERO', 'reserved_balance zero', reserved === '0' ? undefined : `reserved_balance ${String(body.reserved_balance)}`, [o]);
    if (current !== undefined && available !== undefined) {
      v.judge(ID, 'WAL-AVAILABLE-EQUALS-CURRENT', `available_balance equal to current_balance ${String(body.current_balance)}`, current === available ? undefined : `available_balance ${String(body.available_balance)}`, [o]);
      if (current === available) v.reading(ID, 'available-spelling', body.current_balance === body.available_balance ? 'identical' : 'numeric', [o]);
    }
    v.judge(ID, 'WAL-BUSINESS-ID', `business_id ${o.op.params.businessId}`, body.business_id === o.op.params.businessId ? undefined : `business_id ${String(body.business_id)}`, [o]);
    if (typeof body.as_of === 'string') {
      const time = Date.parse(body.as_of);
      // A snapshot is never taken after the answer that carries it: an as_of past the answer's own Date (the server's clock, RFC 9110 6.6.1) is a local time labelled UTC.
      const date = Date.parse(o.ex.response.headers['date'] ?? '');
      const ahead = Number.isFinite(time) && Number.isFinite(date) ? time - date : 0;
      v.judge(ID, 'WAL-AS-OF-UTC', 'as_of in UTC (Z), not after the Date of its answer', !/(Z|z)$/.test(body.as_of) ? `as_of ${body.as_of}` : ahead > DATE_LEEWAY_MS ? `as_of ${body.as_of}, ${Math.round(ahead / 60_000)} minutes after the answer's Date ${o.ex.response.headers['date']}` : undefined, [o]);
      if (lastAsOf !== undefined && Number.isFinite(time) && time < lastAsOf) v.advise(ID, 'A later wallet read carried an earlier as_of than the read before it');
      if (Number.isFinite(time)) lastAsOf = time;
    }
  };
  return { see };
}
