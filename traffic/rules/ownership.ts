// Which business each object the traffic shows belongs to (section 5, ownership and isolation):
// learned from the answers that reveal it (a 202's bulk, a bulk or message read, a listing's bulk
// and rows, a deactivated endpoint, whoever called, the checker's other tenant included) and from
// the env file's foreign fixtures. An object belongs to one business, so an answer serving it under
// another is the concealment rules' to judge. Like the server clock it reads every exchange, so a
// traffic judged in partitions learns the same owners.
import type { Fixtures } from '../../core/model.ts';
import { EvidenceHold, objectOf, type Held, type Observed } from '../context.ts';
import { BoundedMap, STATE_LIMIT, type Reducer } from '../verdicts.ts';

/** What an id was seen as: a bulk SMS, an individual SMS, a recipient row, a webhook endpoint. */
export type ObjectKind = 'bulk' | 'message' | 'row' | 'endpoint';

export interface Owner {
  /** The owning business, or undefined for an env fixture known only as another business's. */
  business: string | undefined;
  kind: ObjectKind;
  /** The answer that showed it (undefined for a fixture), shared by every id it showed. */
  shown?: Held;
}

/**
 * Ids kept at once: a listing shows up to 1,000 rows, so more than other keys (an entry is an id
 * and a reference, some 150 bytes: a few megabytes at the bound).
 */
export const OWNERS_LIMIT = STATE_LIMIT * 16;
/**
 * Showing answers held whole, for evidence: an answer with its exchange is some kilobytes, so the
 * owners' bound would hold a hundred megabytes of them. An owner whose answer was let go is still
 * judged, its evidence naming the answer's place (the same in every partition: ownership reads
 * every exchange).
 */
export const ANSWERS_HELD = STATE_LIMIT;

/** The object an operation names in its path, and what it names it as. */
export function namedObject(o: Observed): { id: string; kind: ObjectKind } | undefined {
  const p = o.op?.params;
  if (!p) return undefined;
  if (p.bulkMessageId !== undefined) return { id: p.bulkMessageId, kind: 'bulk' };
  if (p.messageId !== undefined) return { id: p.messageId, kind: 'message' };
  if (p.endpointId !== undefined) return { id: p.endpointId, kind: 'endpoint' };
  return undefined;
}

/** An answer that served (2xx) an object another business owns, under the business of its path. */
export type ServedListener = (owner: Owner, o: Observed, id: string, named: ObjectKind) => void;

export class Ownership implements Reducer {
  private readonly owners = new BoundedMap<string, Owner>(OWNERS_LIMIT);
  private readonly answers = new EvidenceHold(ANSWERS_HELD);
  private readonly listeners: ServedListener[] = [];

  constructor(private readonly fixtures: Fixtures) {
    const foreign: Array<[string | undefined, ObjectKind]> = [
      [fixtures.foreignBulkId, 'bulk'],
      [fixtures.foreignMessageId, 'message'],
      [fixtures.foreignWebhookEndpointId, 'endpoint'],
    ];
    for (const [id, kind] of foreign) if (id !== undefined) this.owners.set(id, { business: undefined, kind });
  }

  /** Calls `listener` with every answer that serves an object of another business. */
  onServed(listener: ServedListener): void {
    this.listeners.push(listener);
  }

  /** Whether an object the traffic showed belongs to another business than `business`. */
  foreignTo(id: string, business: string): Owner | undefined {
    const owner = this.owners.get(id);
    if (!owner) return undefined;
    const foreign = owner.business === undefined ? this.fixtures.businessId !== undefined && business === this.fixtures.businessId : owner.business !== business;
    return foreign ? owner : undefined;
  }

  /** The owner the traffic (or the env file) showed for an id, if any. */
  ownerOf(id: string): Owner | undefined {
    return this.owners.get(id);
  }

  /** Ids let go at the bound (their later answers judged without them). */
  get dropped(): number {
    return this.owners.dropped;
  }

  see(o: Observed): void {
    if (!o.op || o.pacing || o.status < 200 || o.status >= 300) return;
    const business = o.op.params.businessId;
    if (business === undefined) return;
    // The exchange held as evidence once, however many ids it shows (a listing's rows).
    let shown: Held | undefined;
    let told = false;
    const learn = (id: string, kind: ObjectKind) => {
      // The first answer that shows an object names its owner; one under another business serves
      // what is not its own (which of the two is wrong the traffic cannot say: one is), told once per answer.
      const foreign = this.foreignTo(id, business);
      if (foreign) {
        if (!told) for (const listener of this.listeners) listener(foreign, o, id, kind);
        told = true;
        return;
      }
      if (this.owners.get(id)?.business !== undefined) return;
      this.owners.set(id, { business, kind, shown: (shown ??= this.answers.hold(o)) });
    };
    const named = namedObject(o);
    if (named) learn(named.id, named.kind);
    if (o.op.operationId === 'createSmsBulkMessage' && o.status === 202) {
      const id = objectOf(o.json)?.id;
      if (typeof id === 'string') learn(id, 'bulk');
    }
    if (o.op.operationId === 'listSmsBulkMessageRecipients') {
      const data = objectOf(o.json)?.data;
      if (Array.isArray(data)) {
        for (const row of data) {
          const id = objectOf(row)?.id;
          if (typeof id === 'string') learn(id, 'row');
        }
      }
    }
  }
}
