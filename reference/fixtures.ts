// The seeded world: two businesses, two applications, senders, templates, individual messages,
// webhook endpoints and a finished bulk with enough recipient rows to page through.
import { randomBytes } from 'node:crypto';
import type { Fixtures } from '../core/model.ts';
import { ALL_PERMISSIONS, type BulkRecord, type Permission, type RowFate, type Seed } from './store.ts';
import { uuidv7 } from './ids.ts';
import type { CursorCodec } from './cursors.ts';

const HOUR = 3600_000;
const DAY = 24 * HOUR;

export const PRIMARY_CLIENT_ID = 'conformance-primary';
export const LIMITED_CLIENT_ID = 'conformance-limited';
/** Owner of the other business: the authorization matrix's other tenant (CONFORMANCE_OTHER_CLIENT_ID). */
export const OTHER_CLIENT_ID = 'other-business-app';

/** Fictional numbers (Ofcom drama range, North American 555-01xx) the run may send to. */
export const SANDBOX_RECIPIENTS = ['+447700900123', '+447700900456', '+12025550143', '+12025550188'];

export const WEBHOOK_ENDPOINTS_PER_BUSINESS = 1000;
/** The active endpoints `serve` names in CONFORMANCE_WEBHOOK_ENDPOINT_ID (a run spends one, a sandbox run two: a run and its later run fit). */
export const SERVED_WEBHOOK_ENDPOINTS = 4;
export const FIXTURE_BULK_ROWS = 250;

export interface World {
  seed: Seed;
  /** Every fixture but the expired token, which index.ts mints once the token service exists. */
  fixtures: Omit<Required<Fixtures>, 'expiredToken'>;
  /** `other`: the other business's application (its grant is on that business only). */
  apps: { primary: { clientId: string; clientSecret: string }; limited: { clientId: string; clientSecret: string }; other: { clientId: string; clientSecret: string } };
  /** Ids of webhook endpoints of the granted business, handed out one per `serve` run. */
  webhookEndpointIds: string[];
  otherBusinessBulkId: string;
  otherBusinessWebhookEndpointId: string;
  otherBusinessTemplateId: string;
  otherBusinessSenderId: string;
}

const secret = () => randomBytes(24).toString('base64url');

/** The fixture bulk's entries end in a mix of outcomes so every status filter finds rows. */
function fixtureFate(i: number): RowFate {
  if (i % 5 === 0) return 'undelivered';
  if (i % 10 === 3) return 'delivery-failed';
  if (i % 10 === 8) return 'submit-failed';
  return 'delivered';
}

export function buildWorld(now: number, cursors: CursorCodec): World {
  const businessId = uuidv7(now - 400 * DAY);
  const otherBusinessId = uuidv7(now - 300 * DAY);
  const allPermissions = new Set<Permission>(ALL_PERMISSIONS);
  const withoutWallet = new Set<Permission>(ALL_PERMISSIONS.filter((p) => p !== 'wallet.balance.read'));

  const primary = { clientId: PRIMARY_CLIENT_ID, clientSecret: secret() };
  const limited = { clientId: LIMITED_CLIENT_ID, clientSecret: secret() };
  const other = { clientId: OTHER_CLIENT_ID, clientSecret: secret() };

  const template = {
    id: uuidv7(now - 30 * DAY),
    businessId,
    status: 'active' as const,
    revisionId: uuidv7(now - 20 * DAY),
    text: 'Hello {{first_name}}, order {{order_number}} has shipped.',
    placeholders: ['first_name', 'order_number'],
  };
  const archived = {
    id: uuidv7(now - 90 * DAY),
    businessId,
    status: 'archived' as const,
    revisionId: uuidv7(now - 90 * DAY),
    // Same placeholders as the active template, so a run can fill them without knowing this one.
    text: 'Hello {{first_name}}, order {{order_number}} is ready for collection.',
    placeholders: ['first_name', 'order_number'],
  };
  const otherTemplate = {
    id: uuidv7(now - 40 * DAY),
    businessId: otherBusinessId,
    status: 'active' as const,
    revisionId: uuidv7(now - 40 * DAY),
    text: 'Your table is booked for {{time}}.',
    placeholders: ['time'],
  };

  const messageAcceptedAt = now - 2 * DAY;
  const message = {
    id: uuidv7(messageAcceptedAt),
    business_id: businessId,
    from: 'AcmeAlerts',
    to: SANDBOX_RECIPIENTS[0]!,
    classification: 'transactional' as const,
    message: 'Hello Ada, order 1042 has shipped.',
    status: 'delivered' as const,
    status_reason: null,
    template: { template_id: template.id, revision_id: template.revisionId },
    accepted_at: messageAcceptedAt,
    submitted_at: messageAcceptedAt + 900,
    delivered_at: messageAcceptedAt + 4200,
    failed_at: null,
  };
  const foreignMessage = {
    id: uuidv7(messageAcceptedAt + 5000),
    business_id: otherBusinessId,
    from: 'OtherCo',
    to: SANDBOX_RECIPIENTS[1]!,
    classification: 'promotional' as const,
    message: 'Ten percent off this weekend.',
    status: 'sent' as const,
    status_reason: null,
    template: null,
    accepted_at: messageAcceptedAt + 5000,
    submitted_at: messageAcceptedAt + 6000,
    delivered_at: null,
    failed_at: null,
  };

  const webhookEndpoints = [];
  for (let i = 0; i < WEBHOOK_ENDPOINTS_PER_BUSINESS; i++) {
    webhookEndpoints.push({ id: uuidv7(now - 10 * DAY + i), businessId, active: true, deactivatedAt: null });
  }
  const otherEndpoint = { id: uuidv7(now - 9 * DAY), businessId: otherBusinessId, active: true, deactivatedAt: null };

  const bulkAcceptedAt = now - 3 * DAY;
  const rows = Array.from({ length: FIXTURE_BULK_ROWS }, (_, i) => ({
    id: uuidv7(bulkAcceptedAt + i),
    position: i,
    to: `+447700900${String(i).padStart(3, '0')}`,
    fate: fixtureFate(i),
  }));
  const fixtureBulk: BulkRecord = {
    id: uuidv7(bulkAcceptedAt),
    businessId,
    clientId: PRIMARY_CLIENT_ID,
    from: 'AcmeAlerts',
    classification: 'transactional',
    message: 'Your parcel is on its way.',
    template: null,
    acceptedAt: bulkAcceptedAt,
    intake: { good: FIXTURE_BULK_ROWS, bad: 0, empty: 0 },
    rows,
    finished: true,
  };
  const otherBulkAcceptedAt = now - 2 * DAY;
  const otherBulk: BulkRecord = {
    id: uuidv7(otherBulkAcceptedAt),
    businessId: otherBusinessId,
    clientId: OTHER_CLIENT_ID,
    from: 'OtherCo',
    classification: 'promotional',
    message: 'Ten percent off this weekend.',
    template: null,
    acceptedAt: otherBulkAcceptedAt,
    intake: { good: 3, bad: 0, empty: 0 },
    rows: SANDBOX_RECIPIENTS.slice(0, 3).map((to, i) => ({ id: uuidv7(otherBulkAcceptedAt + i), position: i, to, fate: 'delivered' as const })),
    finished: true,
  };

  // An expired cursor: issued 25 hours ago for the second page of the fixture bulk (4.3, 8).
  const expiredCursor = cursors.encode({
    business: businessId,
    bulk: fixtureBulk.id,
    filters: { status: null, to: null },
    next: 100,
    issuedAt: now - 25 * HOUR,
  });

  const seed: Seed = {
    businesses: [
      { id: businessId, name: 'Acme Retail Ltd', currency: 'GBP', currentBalance: '1250.75' },
      { id: otherBusinessId, name: 'Other Trading Co', currency: 'EUR', currentBalance: '310.00' },
    ],
    applications: [
      { ...primary, name: 'Conformance primary', grants: [{ businessId, active: true, permissions: allPermissions }] },
      { ...limited, name: 'Conformance limited', grants: [{ businessId, active: true, permissions: withoutWallet }] },
      {
        ...other,
        name: 'Other business app',
        grants: [{ businessId: otherBusinessId, active: true, permissions: allPermissions }],
      },
    ],
    senders: [
      { businessId, senderId: 'AcmeAlerts', authorized: true },
      { businessId, senderId: 'AcmeNews', authorized: true },
      // Registered but never approved: exists, yet not authorized (5.8).
      { businessId, senderId: 'AcmePending', authorized: false },
      { businessId: otherBusinessId, senderId: 'OtherCo', authorized: true },
    ],
    templates: [template, archived, otherTemplate],
    messages: [message, foreignMessage],
    webhookEndpoints: [...webhookEndpoints, otherEndpoint],
    bulks: [fixtureBulk, otherBulk],
  };

  return {
    seed,
    apps: { primary, limited, other },
    webhookEndpointIds: webhookEndpoints.map((e) => e.id),
    otherBusinessBulkId: otherBulk.id,
    otherBusinessWebhookEndpointId: otherEndpoint.id,
    otherBusinessTemplateId: otherTemplate.id,
    otherBusinessSenderId: 'OtherCo',
    fixtures: {
      businessId,
      otherBusinessId,
      senderId: 'AcmeAlerts',
      unauthorizedSenderId: 'AcmePending',
      templateId: template.id,
      templatePlaceholders: [...template.placeholders],
      inactiveTemplateId: archived.id,
      messageId: message.id,
      messageTemplateId: template.id,
      foreignMessageId: foreignMessage.id,
      foreignBulkId: otherBulk.id,
      foreignWebhookEndpointId: otherEndpoint.id,
      webhookEndpointId: webhookEndpoints[0]!.id,
      // Three for `serve`'s env lines: three full runs against one served reference, each spending one.
      webhookEndpointIds: webhookEndpoints.slice(0, SERVED_WEBHOOK_ENDPOINTS).map((e) => e.id),
      expiredCursor,
      expiredCursorBulkId: fixtureBulk.id,
      recipients: [...SANDBOX_RECIPIENTS],
    },
  };
}
