// Listings of one bulk SMS held against each other (sections 2.3, 4.3): the latest complete
// unfiltered listing of a bulk (one page, no cursor, has_more false) is its default order, and
// every other listing of it (pages of a walk, filtered listings, a later complete one) keeps what
// that order showed: row ids, their order, and a walk's pages that follow one another in it. Rows
// may appear as a bulk advances (a row not in the order is never judged, unless every entry the
// bulk was accepted with already had its row); rows seen never vanish or change places.
import { kept, objectOf, type JudgeContext, type Observed } from '../context.ts';
import { BoundedMap, STATE_LIMIT, type CheckDef, type Reducer, type Verdicts } from '../verdicts.ts';
import { CURSOR_LIMIT } from './cursors.ts';

const CONSISTENT = 'traffic/sequences/listing-consistent';
const VISITS = 'traffic/cursors/walk-visits-every-row';

export const checks: CheckDef[] = [
  { id: CONSISTENT, topic: 'sequences', title: "every listing of a bulk SMS (a page, a filtered listing, a later complete one) keeps the row ids and the order of the bulk's complete listing", requirements: ['SEQ-LISTING-CONSISTENT'] },
  { id: VISITS, topic: 'cursors', title: "the next page of a walk starts at the row that follows the page before in the bulk's complete listing (whatever page size each asks)", requirements: ['CUR-WALK'] },
];

/** Bulks whose complete listing is kept at once: each holds up to 1,000 row ids, so fewer than other keys. */
export const LISTINGS_KEPT = 64;

interface Order {
  index: Map<string, number>;
  page: Observed;
}

interface Walk {
  bulk: string;
  lastId: string;
  page: Observed;
}

const idsOf = (rows: unknown[]) => rows.map((r) => objectOf(r)?.id).filter((id): id is string => typeof id === 'string');

export function start(v: Verdicts, ctx: JudgeContext): Reducer {
  /** Bulk -> the entries it was accepted with (its 202 in the traffic). */
  const entries = new BoundedMap<string, number>(STATE_LIMIT);
  /** Bulk -> its latest complete listing (the most recently listed last). */
  const orders = new BoundedMap<string, Order>(LISTINGS_KEPT);
  const walks = new BoundedMap<string, Walk>(CURSOR_LIMIT);
  const names = ctx.params;
  /** The rows of a listing in the order's terms: the first one out of place, and the first id the order does not hold. */
  const judgeAgainst = (order: Order, ids: string[], o: Observed, entries: number | undefined, what: string): void => {
    let last = -1;
    let lastId: string | undefined;
    for (const id of ids) {
      const at = order.index.get(id);
      if (at === undefined) {
        // Every entry had its row already: a row id no complete listing held is no row of the bulk.
        if (entries !== undefined && order.index.size >= entries) {
          v.fail(CONSISTENT, 'SEQ-LISTING-CONSISTENT', `the row ids of the bulk's complete listing (all ${entries} entries listed)`, `row ${id} in ${what}, which that listing does not hold`, [order.page, o]);
          return;
        }
        continue;
      }
      if (at < last) {
        v.fail(CONSISTENT, 'SEQ-LISTING-CONSISTENT', "the rows in the order of the bulk's complete listing", `row ${id} before row ${lastId} in ${what}`, [order.page, o]);
        return;
      }
      last = at;
      lastId = id;
    }
    v.pass(CONSISTENT, o);
  };
  const see = (o: Observed): void => {
    if (!o.op || o.pacing) return;
    const business = o.op.params.businessId!;
    if (o.op.operationId === 'createSmsBulkMessage') {
      const id = objectOf(o.json)?.id;
      const recipients = objectOf(o.requestJson)?.recipients;
      const key = `${business}/${String(id)}`;
      if (o.status === 202 && typeof id === 'string' && Array.isArray(recipients) && !entries.has(key)) entries.set(key, recipients.length);
      return;
    }
    if (o.op.operationId !== 'listSmsBulkMessageRecipients' || o.status !== 200 || !o.responseKnown) return;
    const page = objectOf(o.json);
    const rows = page?.data;
    const pagination = objectOf(page?.pagination);
    if (!Array.isArray(rows) || !pagination) return;
    const key = `${business}/${o.op.params.bulkMessageId}`;
    const q = o.op.query;
    const cursor = q.get(names.cursor) ?? undefined;
    // Any parameter but the page size and the cursor may select rows (a filter, or one the document does not name).
    const filtered = [...q.keys()].some((k) => k !== names.limit && k !== names.cursor);
    const ids = idsOf(rows);
    const order = orders.get(key);
    // A walk's next page follows the page before in the bulk's order (unfiltered walks: a filter's rows are a subset).
    const walk = cursor !== undefined ? walks.get(cursor) : undefined;
    if (walk && walk.bulk === key && !filtered && order && ids.length > 0) {
      const before = order.index.get(walk.lastId);
      const first = order.index.get(ids[0]!);
      if (before !== undefined && first !== undefined) {
        const skipped = first - before - 1;
        v.judge(VISITS, 'CUR-WALK', `the page after row ${walk.lastId} starting at the row that follows it in the bulk's complete listing`, skipped > 0 ? `row ${ids[0]} first, ${skipped} row${skipped === 1 ? '' : 's'} of that listing passed over` : undefined, [order.page, walk.page, o]);
      }
    }
    const next = pagination.next_cursor;
    if (typeof next === 'string' && next !== '' && ids.length > 0 && !filtered) walks.set(next, { bulk: key, lastId: ids.at(-1)!, page: kept(o) });
    if (cursor === undefined && !filtered && pagination.has_more === false) {
      // A complete listing: the one before it must be kept in it (rows never vanish nor move), then it is the order.
      const now = new Map(ids.map((id, i) => [id, i]));
      if (order) {
        let gone: string | undefined;
        for (const id of order.index.keys()) if (!now.has(id)) gone ??= id;
        if (gone) v.fail(CONSISTENT, 'SEQ-LISTING-CONSISTENT', "every row of the bulk's earlier complete listing", `row ${gone} no longer listed`, [order.page, o]);
        else judgeAgainst(order, ids, o, undefined, 'a later complete listing');
      }
      orders.delete(key);
      orders.set(key, { index: now, page: kept(o) });
      return;
    }
    if (order) judgeAgainst(order, ids, o, entries.get(key), filtered ? 'a filtered listing' : 'a page of a walk');
  };
  return {
    see,
    forgotten: () => [
      { check: CONSISTENT, what: 'complete listings of bulk SMS', limit: LISTINGS_KEPT, count: orders.dropped },
      { check: VISITS, what: 'pages of walks', limit: CURSOR_LIMIT, count: walks.dropped },
    ],
  };
}
