// Valid instances of every component schema, built from the document's tables (sections 2, 4, 7).
// The invalid cases of schemas.test.ts are each one change away from these.
import type { SchemaName } from '../../spec/contract.ts';
import { problemCodes } from '../../spec/problem-codes.ts';

export const ID = '0190a5c4-7b2e-7c3d-8e4f-123456789abc';
export const OTHER_ID = '0190a5c4-7b2e-7aaa-bfff-00000000beef';
export const AT = '2024-05-01T10:00:00Z';

export const template = { template_id: ID, revision_id: OTHER_ID };

/** The acceptance response of 4.1: intake counts, submission and delivery summary null. */
export const acceptedBulk = {
  id: ID,
  business_id: OTHER_ID,
  from: 'ACME',
  classification: 'transactional',
  status: 'queued',
  settled: false,
  message: 'Hello {{name}}',
  template: null,
  accepted_at: AT,
  intake: { good: 2, bad: 0, empty: 0 },
  submission: null,
  delivery_summary: null,
  warnings: [],
};

/** A later read (4.2) with every optional part filled. */
export const completedBulk = {
  ...acceptedBulk,
  status: 'completed',
  settled: true,
  message: null,
  template,
  submission: { processed: 2, success: 2, failed: 0, retryable_failed_count: 0, exhausted: 0 },
  delivery_summary: { as_of: '2024-05-01T10:05:00.123Z', complete: false, outcomes_resolved: 1 },
  warnings: [{ code: 'delivery_summary_stale', detail: 'Projection lags the delivery store.' }],
};

export const createRequest = {
  from: 'ACME',
  classification: 'promotional',
  message: 'Hello {{name}}',
  recipients: [{ to: '+14155550100', template_variables: { name: 'Ada' } }, { to: '+447700900123' }],
};

export const createFromTemplate = {
  from: 'ACME',
  classification: 'transactional',
  template_id: ID,
  recipients: [{ to: '+14155550100' }],
};

export const recipientRow = {
  id: ID,
  to: '+14155550100',
  submission_status: 'sent',
  delivery_status: 'delivered',
  status_reason: null,
  accepted_at: AT,
  submitted_at: '2024-05-01T10:00:01Z',
  delivered_at: '2024-05-01T10:00:09Z',
  failed_at: null,
};

export const pagination = { limit: 100, has_more: true, next_cursor: 'opaque-cursor' };

export const individualMessage = {
  id: ID,
  business_id: OTHER_ID,
  from: 'ACME',
  to: '+14155550100',
  classification: 'transactional',
  message: 'Hello Ada',
  status: 'delivered',
  status_reason: null,
  template,
  accepted_at: AT,
  submitted_at: AT,
  delivered_at: AT,
  failed_at: null,
};

export const walletBalance = {
  business_id: ID,
  business_name: 'Acme Ltd',
  currency: 'EUR',
  current_balance: '125.40',
  available_balance: '125.40',
  reserved_balance: '0.00',
  as_of: AT,
};

export const problem = {
  type: 'https://problems.example.invalid/validation_failed',
  title: 'Validation failed',
  status: 400,
  detail: 'One field is invalid.',
  instance: '/v1/businesses/0190a5c4-7b2e-7c3d-8e4f-123456789abc/sms/bulk-messages',
  code: 'validation_failed',
  request_id: 'req-123',
  errors: [{ pointer: '/recipients/0/to', code: 'field_invalid' }],
};

/** A copy of `base` with the member at `path` (JSON Pointer) set, or removed when `value` is REMOVE. */
export const REMOVE = Symbol('remove');
export function withAt(base: unknown, path: string, value: unknown): unknown {
  const copy = structuredClone(base) as Record<string, unknown>;
  const tokens = path.split('/').slice(1);
  const last = tokens.pop()!;
  let node: Record<string, unknown> = copy;
  for (const token of tokens) node = node[token] as Record<string, unknown>;
  if (value === REMOVE) delete node[last];
  else node[last] = value;
  return copy;
}

/** At least one valid instance per component schema (a test checks none is missing). */
export const validInstances: Record<SchemaName, unknown[]> = {
  UuidV7: [ID, OTHER_ID, ID.toUpperCase()],
  Timestamp: [AT, '2024-05-01T10:00:00.123456Z', '2024-02-29T23:59:59Z'],
  ClientTimestamp: [AT, '2024-05-01T12:00:00+02:00', '2024-05-01T05:30:00.5-04:30'],
  SenderId: ['A', 'ACME', 'x'.repeat(20)],
  MessageClassification: ['transactional', 'promotional'],
  E164PhoneNumber: ['+14155550100', '+12345678', '+123456789012345'],
  TemplateVariables: [{}, { name: 'Ada', code: 'x'.repeat(512) }],
  TemplateRevisionPin: [template],
  DecimalMoney: ['0', '0.00', '125.40', '-3.5', '1000000'],
  BulkProcessingStatus: ['created', 'scheduled', 'queued', 'processing', 'paused', 'completed', 'failed', 'cancelled'],
  ContractWarning: [{ code: 'delivery_summary_unavailable', detail: 'Delivery reporting is unavailable.' }],
  BulkIntake: [{}, { good: 0, bad: 0, empty: 0 }],
  BulkSubmission: [{}, completedBulk.submission],
  DeliverySummary: [completedBulk.delivery_summary],
  SmsBulkMessage: [
    acceptedBulk,
    completedBulk,
    // Only the required members; settled null (cannot be computed).
    { id: ID, business_id: ID, from: 'A', classification: 'promotional', status: 'processing', settled: null, accepted_at: AT },
  ],
  CreateSmsBulkMessageRequest: [createRequest, createFromTemplate],
  BulkRecipient: [{ to: '+14155550100' }, { to: '+14155550100', template_variables: { name: 'Ada' } }],
  BulkRecipientRow: [recipientRow, {}],
  Pagination: [pagination, { limit: 1, has_more: false, next_cursor: null }, { limit: 1, has_more: false }],
  BulkRecipientPage: [{ data: [recipientRow], pagination }, { data: [], pagination: { limit: 100, has_more: false, next_cursor: null } }],
  RecipientStatusFilter: ['queued', 'sent', 'delivered', 'failed'],
  IndividualMessageStatus: ['queued', 'sent', 'delivered', 'failed'],
  IndividualSmsMessage: [individualMessage, {}],
  WalletBalance: [walletBalance],
  Problem: [problem, withAt(withAt(problem, '/errors', REMOVE), '/instance', REMOVE)],
  // The typed list test/spec/openapi.test.ts holds equal to the enum.
  ProblemCode: [...problemCodes],
  ProblemFieldError: [{ pointer: '/recipients/0/to', code: 'field_invalid' }, { pointer: 'limit', code: 'field_invalid' }],
  RequestId: ['r', 'req-123_A.b', 'x'.repeat(128)],
  IdempotencyKey: ['k', 'order 42 / retry', 'x'.repeat(256)],
  RetryAfter: ['0', '120', 'Sun, 06 Nov 1994 08:49:37 GMT', 'Sunday, 06-Nov-94 08:49:37 GMT', 'Sun Nov  6 08:49:37 1994'],
};
