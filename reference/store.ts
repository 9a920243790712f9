// What the reference keeps, behind a small storage interface. The only implementation is in
// memory; handlers never touch the maps directly, so another backend could replace it.

export type Permission =
  | 'sms.bulk.send'
  | 'sms.bulk.read'
  | 'sms.message.read'
  | 'wallet.balance.read'
  | 'webhook.endpoints.manage';

export const ALL_PERMISSIONS: readonly Permission[] = [
  'sms.bulk.send',
  'sms.bulk.read',
  'sms.message.read',
  'wallet.balance.read',
  'webhook.endpoints.manage',
];

export interface Business {
  id: string;
  name: string;
  currency: string;
  /** Decimal money string of the source of record. */
  currentBalance: string;
}

export interface Grant {
  businessId: string;
  active: boolean;
  permissions: ReadonlySet<Permission>;
}

export interface Application {
  clientId: string;
  clientSecret: string;
  name: string;
  grants: readonly Grant[];
}

export interface Sender {
  businessId: string;
  senderId: string;
  authorized: boolean;
}

export interface Template {
  id: string;
  businessId: string;
  status: 'active' | 'archived';
  revisionId: string;
  text: string;
  placeholders: readonly string[];
}

export interface IndividualMessage {
  id: string;
  business_id: string;
  from: string;
  to: string;
  classification: 'transactional' | 'promotional';
  message: string;
  status: 'queued' | 'sent' | 'delivered' | 'failed';
  status_reason: string | null;
  template: { template_id: string; revision_id: string } | null;
  accepted_at: number;
  submitted_at: number | null;
  delivered_at: number | null;
  failed_at: number | null;
}

export interface WebhookEndpoint {
  id: string;
  businessId: string;
  active: boolean;
  deactivatedAt: number | null;
}

/** How a recipient entry ends; the lifecycle projects statuses from it and the clock. */
export type RowFate = 'delivered' | 'delivery-failed' | 'undelivered' | 'submit-failed' | 'retry-then-delivered' | 'retry-exhausted';

export interface RecipientRow {
  id: string;
  position: number;
  to: string;
  fate: RowFate;
}

export interface BulkRecord {
  id: string;
  businessId: string;
  clientId: string;
  from: string;
  classification: 'transactional' | 'promotional';
  message: string | null;
  template: { template_id: string; revision_id: string } | null;
  acceptedAt: number;
  intake: { good: number; bad: number; empty: number };
  rows: readonly RecipientRow[];
  /** Fixture bulks carry a finished history regardless of the timeline constants. */
  finished: boolean;
}

/** The original response of an accepted submission, replayed for an equivalent repeat (4.1). */
export interface StoredResponse {
  /** The request id the original response carried (read only by the `blind-replay-stale-request-id` defect). */
  requestId?: string;
  status: number;
  location: string;
  body: string;
}

export interface IdempotencyRecord {
  fingerprint: string;
  /** The payload as first received, kept so defects can compare raw bytes. */
  rawBody: string;
  /** The request body's own text, so defects can tell a byte-identical repeat from a rewritten one. */
  requestText?: string;
  createdAt: number;
  response: StoredResponse;
}

export interface Store {
  business(id: string): Business | undefined;
  application(clientId: string): Application | undefined;
  sender(businessId: string, senderId: string): Sender | undefined;
  /** Every sender registered for a business (read only by the `blind9-sender-lookup-case-insensitive` defect). */
  sendersOf(businessId: string): Sender[];
  template(id: string): Template | undefined;
  message(id: string): IndividualMessage | undefined;
  webhookEndpoint(id: string): WebhookEndpoint | undefined;
  saveWebhookEndpoint(endpoint: WebhookEndpoint): void;
  /** The first endpoint that passes `test` (read only by the `blind4-webhook-lookup-by-prefix` defect). */
  webhookEndpointMatching(test: (endpoint: WebhookEndpoint) => boolean): WebhookEndpoint | undefined;
  bulk(id: string): BulkRecord | undefined;
  /** Every bulk of every business (read only by the `blind7-number-filter-searches-all-bulks` defect). */
  allBulks(): BulkRecord[];
  saveBulk(bulk: BulkRecord): void;
  idempotency(scope: string): IdempotencyRecord | undefined;
  saveIdempotency(scope: string, record: IdempotencyRecord): void;
  /** Totals for the control origin ("nothing was created" proofs). */
  counts(): StoreCounts;
}

export interface StoreCounts {
  bulkMessages: number;
  recipientRows: number;
  idempotencyKeys: number;
  webhookEndpointsActive: number;
  webhookEndpointsDeactivated: number;
}

export interface Seed {
  businesses: Business[];
  applications: Application[];
  senders: Sender[];
  templates: Template[];
  messages: IndividualMessage[];
  webhookEndpoints: WebhookEndpoint[];
  bulks: BulkRecord[];
}

export class MemoryStore implements Store {
  private readonly businesses = new Map<string, Business>();
  private readonly applications = new Map<string, Application>();
  private readonly senders = new Map<string, Sender>();
  private readonly templates = new Map<string, Template>();
  private readonly messages = new Map<string, IndividualMessage>();
  private readonly endpoints = new Map<string, WebhookEndpoint>();
  private readonly bulks = new Map<string, BulkRecord>();
  private readonly keys = new Map<string, IdempotencyRecord>();
  private rowCount = 0;

  constructor(seed: Seed) {
    for (const b of seed.businesses) this.businesses.set(b.id, b);
    for (const a of seed.applications) this.applications.set(a.clientId, a);
    for (const s of seed.senders) this.senders.set(`${s.businessId}\u0000${s.senderId}`, s);
    for (const t of seed.templates) this.templates.set(t.id, t);
    for (const m of seed.messages) this.messages.set(m.id, m);
    for (const e of seed.webhookEndpoints) this.endpoints.set(e.id, e);
    for (const b of seed.bulks) this.saveBulk(b);
  }

  business(id: string) {
    return this.businesses.get(id);
  }
  application(clientId: string) {
    return this.applications.get(clientId);
  }
  sender(businessId: string, senderId: string) {
    return this.senders.get(`${businessId}\u0000${senderId}`);
  }
  sendersOf(businessId: string) {
    return [...this.senders.values()].filter((s) => s.businessId === businessId);
  }
  template(id: string) {
    return this.templates.get(id);
  }
  message(id: string) {
    return this.messages.get(id);
  }
  webhookEndpoint(id: string) {
    return this.endpoints.get(id);
  }
  saveWebhookEndpoint(endpoint: WebhookEndpoint) {
    this.endpoints.set(endpoint.id, endpoint);
  }
  webhookEndpointMatching(test: (endpoint: WebhookEndpoint) => boolean) {
    for (const e of this.endpoints.values()) if (test(e)) return e;
    return undefined;
  }
  bulk(id: string) {
    return this.bulks.get(id);
  }
  allBulks() {
    return [...this.bulks.values()];
  }
  saveBulk(bulk: BulkRecord) {
    const previous = this.bulks.get(bulk.id);
    this.rowCount += bulk.rows.length - (previous?.rows.length ?? 0);
    this.bulks.set(bulk.id, bulk);
  }
  idempotency(scope: string) {
    return this.keys.get(scope);
  }
  saveIdempotency(scope: string, record: IdempotencyRecord) {
    this.keys.set(scope, record);
  }
  counts(): StoreCounts {
    let active = 0;
    for (const e of this.endpoints.values()) if (e.active) active++;
    return {
      bulkMessages: this.bulks.size,
      recipientRows: this.rowCount,
      idempotencyKeys: this.keys.size,
      webhookEndpointsActive: active,
      webhookEndpointsDeactivated: this.endpoints.size - active,
    };
  }
}
