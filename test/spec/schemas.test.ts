// Table-driven checks of the compiled schemas: every valid instance of the document's tables
// passes, and every constraint rejects its violation at the expected pointer with the expected
// keyword (n-1 / n / n+1 at each length bound).
import { describe, expect, it } from 'vitest';
import { schemaNames, type SchemaName } from '../../spec/contract.ts';
import { newAjv } from '../../spec/ajv.ts';
import { createContractAjv, jsonSchemaFor, validate, validateApiResponse, validateRequestBody, validateResponse } from '../../spec/validators.ts';
import {
  AT,
  ID,
  REMOVE,
  acceptedBulk,
  completedBulk,
  createFromTemplate,
  createRequest,
  individualMessage,
  pagination,
  problem,
  recipientRow,
  validInstances,
  walletBalance,
  withAt,
} from './fixtures.ts';

interface Rejection {
  schema: SchemaName;
  name: string;
  value: unknown;
  pointer: string;
  keyword: string;
}

interface Acceptance {
  schema: SchemaName;
  name: string;
  value: unknown;
}

const chars = (n: number) => 'x'.repeat(n);
const phone = (length: number) => `+1${'2'.repeat(length - 2)}`;
const recipients = (n: number) => Array.from({ length: n }, (_, i) => ({ to: `+1415555${String(i).padStart(4, '0')}` }));
const rejected = (schema: SchemaName, name: string, value: unknown, pointer: string, keyword: string): Rejection => ({
  schema,
  name,
  value,
  pointer,
  keyword,
});
const accepted = (schema: SchemaName, name: string, value: unknown): Acceptance => ({ schema, name, value });

describe('valid instances from the document tables', () => {
  it('cover every component schema', () => {
    expect(Object.keys(validInstances).sort()).toEqual([...schemaNames].sort());
  });
  const cases = schemaNames.flatMap((schema) => validInstances[schema].map((value, i) => ({ schema, i, value })));
  it.each(cases)('$schema #$i is accepted', ({ schema, value }) => {
    expect(validate(schema, value)).toEqual([]);
  });
});

// ---- length bounds: n-1 / n / n+1 ----------------------------------------------------------

const lengthAccepted: Acceptance[] = [
  accepted('SenderId', 'length 1', chars(1)),
  accepted('SenderId', 'length 20', chars(20)),
  accepted('CreateSmsBulkMessageRequest', 'message length 1', withAt(createRequest, '/message', 'a')),
  accepted('CreateSmsBulkMessageRequest', 'message length 4096', withAt(createRequest, '/message', chars(4096))),
  accepted('TemplateVariables', 'value length 512', { name: chars(512) }),
  accepted('E164PhoneNumber', 'length 9', phone(9)),
  accepted('E164PhoneNumber', 'length 16', phone(16)),
  accepted('IdempotencyKey', 'length 1', chars(1)),
  accepted('IdempotencyKey', 'length 256', chars(256)),
  accepted('RequestId', 'length 1', chars(1)),
  accepted('RequestId', 'length 128', chars(128)),
  accepted('WalletBalance', 'business_name length 1', withAt(walletBalance, '/business_name', 'A')),
  accepted('WalletBalance', 'business_name length 256', withAt(walletBalance, '/business_name', chars(256))),
  accepted('CreateSmsBulkMessageRequest', '1 recipient', withAt(createRequest, '/recipients', recipients(1))),
  accepted('CreateSmsBulkMessageRequest', '1000 recipients', withAt(createRequest, '/recipients', recipients(1000))),
  // More than the maximum is the semantic 422 recipient_limit_exceeded, never a schema failure.
  accepted('CreateSmsBulkMessageRequest', '1001 recipients', withAt(createRequest, '/recipients', recipients(1001))),
  accepted('Problem', 'status 100', withAt(problem, '/status', 100)),
  accepted('Problem', 'status 599', withAt(problem, '/status', 599)),
];

const lengthRejected: Rejection[] = [
  rejected('SenderId', 'length 0', '', '', 'minLength'),
  rejected('SenderId', 'length 21', chars(21), '', 'maxLength'),
  rejected('CreateSmsBulkMessageRequest', 'from length 0', withAt(createRequest, '/from', ''), '/from', 'minLength'),
  rejected('CreateSmsBulkMessageRequest', 'from length 21', withAt(createRequest, '/from', chars(21)), '/from', 'maxLength'),
  rejected('SmsBulkMessage', 'from length 21', withAt(acceptedBulk, '/from', chars(21)), '/from', 'maxLength'),
  rejected('CreateSmsBulkMessageRequest', 'message length 0', withAt(createRequest, '/message', ''), '/message', 'minLength'),
  rejected('CreateSmsBulkMessageRequest', 'message length 4097', withAt(createRequest, '/message', chars(4097)), '/message', 'maxLength'),
  rejected('TemplateVariables', 'value length 513', { name: chars(513) }, '/name', 'maxLength'),
  rejected(
    'CreateSmsBulkMessageRequest',
    'recipient variable length 513',
    withAt(createRequest, '/recipients/0/template_variables/name', chars(513)),
    '/recipients/0/template_variables/name',
    'maxLength',
  ),
  rejected('E164PhoneNumber', 'length 8', phone(8), '', 'minLength'),
  rejected('E164PhoneNumber', 'length 8 (pattern)', phone(8), '', 'pattern'),
  rejected('E164PhoneNumber', 'length 17', phone(17), '', 'maxLength'),
  rejected('E164PhoneNumber', 'length 17 (pattern)', phone(17), '', 'pattern'),
  rejected('IdempotencyKey', 'length 0', '', '', 'minLength'),
  rejected('IdempotencyKey', 'length 257', chars(257), '', 'maxLength'),
  rejected('RequestId', 'length 0', '', '', 'minLength'),
  rejected('RequestId', 'length 129', chars(129), '', 'maxLength'),
  rejected('Problem', 'request_id length 129', withAt(problem, '/request_id', chars(129)), '/request_id', 'maxLength'),
  rejected('WalletBalance', 'business_name length 0', withAt(walletBalance, '/business_name', ''), '/business_name', 'minLength'),
  rejected('WalletBalance', 'business_name length 257', withAt(walletBalance, '/business_name', chars(257)), '/business_name', 'maxLength'),
  rejected('CreateSmsBulkMessageRequest', '0 recipients', withAt(createRequest, '/recipients', []), '/recipients', 'minItems'),
  rejected('Problem', 'status 99', withAt(problem, '/status', 99), '/status', 'minimum'),
  rejected('Problem', 'status 600', withAt(problem, '/status', 600), '/status', 'maximum'),
  rejected('BulkIntake', 'good -1', { good: -1 }, '/good', 'minimum'),
  rejected('BulkSubmission', 'retryable_failed_count -1', { retryable_failed_count: -1 }, '/retryable_failed_count', 'minimum'),
  rejected('DeliverySummary', 'outcomes_resolved -1', withAt(completedBulk.delivery_summary, '/outcomes_resolved', -1), '/outcomes_resolved', 'minimum'),
];

// ---- patterns and formats ------------------------------------------------------------------

const patternAccepted: Acceptance[] = [
  accepted('UuidV7', 'upper-case hex', ID.toUpperCase()),
  accepted('Timestamp', 'lower-case t and z (RFC 3339 allows both)', '2024-05-01t10:00:00z'),
  accepted('ClientTimestamp', 'negative offset', '2024-05-01T10:00:00-05:00'),
  accepted('DecimalMoney', 'negative zero-led fraction', '-0.5'),
  accepted('Problem', 'relative type reference', withAt(problem, '/type', '/problems/validation_failed')),
];

const patternRejected: Rejection[] = [
  rejected('UuidV7', 'version nibble 4', '0190a5c4-7b2e-4c3d-8e4f-123456789abc', '', 'pattern'),
  rejected('UuidV7', 'variant nibble c', '0190a5c4-7b2e-7c3d-ce4f-123456789abc', '', 'pattern'),
  rejected('UuidV7', 'no hyphens', '0190a5c47b2e7c3d8e4f123456789abc', '', 'pattern'),
  rejected('UuidV7', 'urn prefix', `urn:uuid:${ID}`, '', 'pattern'),
  rejected('SmsBulkMessage', 'id not v7', withAt(acceptedBulk, '/id', '0190a5c4-7b2e-1c3d-8e4f-123456789abc'), '/id', 'pattern'),
  rejected('Timestamp', 'offset +02:00 in a response', '2024-05-01T12:00:00+02:00', '', 'pattern'),
  rejected('Timestamp', 'offset +00:00 is not Z', '2024-05-01T10:00:00+00:00', '', 'pattern'),
  rejected('Timestamp', 'no offset', '2024-05-01T10:00:00', '', 'pattern'),
  rejected('Timestamp', 'date only', '2024-05-01', '', 'pattern'),
  rejected('Timestamp', 'impossible date', '2024-02-30T10:00:00Z', '', 'format'),
  rejected('SmsBulkMessage', 'accepted_at with offset', withAt(acceptedBulk, '/accepted_at', '2024-05-01T12:00:00+02:00'), '/accepted_at', 'pattern'),
  rejected('ClientTimestamp', 'local time without offset', '2024-05-01T10:00:00', '', 'pattern'),
  rejected('ClientTimestamp', 'offset without colon', '2024-05-01T10:00:00+0200', '', 'pattern'),
  rejected('E164PhoneNumber', 'no leading +', '14155550100', '', 'pattern'),
  rejected('E164PhoneNumber', 'leading zero country code', '+04155550100', '', 'pattern'),
  rejected('E164PhoneNumber', 'spaces', '+1 415 555 0100', '', 'pattern'),
  rejected('BulkRecipient', 'to not E.164', { to: '0044 7700 900123' }, '/to', 'pattern'),
  rejected('DecimalMoney', 'leading zero', '01.00', '', 'pattern'),
  rejected('DecimalMoney', 'trailing dot', '1.', '', 'pattern'),
  rejected('DecimalMoney', 'comma decimal', '1,00', '', 'pattern'),
  rejected('DecimalMoney', 'plus sign', '+1.00', '', 'pattern'),
  rejected('WalletBalance', 'current_balance a number', withAt(walletBalance, '/current_balance', 125.4), '/current_balance', 'type'),
  rejected('WalletBalance', 'reserved_balance not decimal', withAt(walletBalance, '/reserved_balance', 'zero'), '/reserved_balance', 'pattern'),
  rejected('WalletBalance', 'currency lower case', withAt(walletBalance, '/currency', 'eur'), '/currency', 'pattern'),
  rejected('WalletBalance', 'currency 4 letters', withAt(walletBalance, '/currency', 'EURO'), '/currency', 'maxLength'),
  rejected('WalletBalance', 'currency 2 letters', withAt(walletBalance, '/currency', 'EU'), '/currency', 'minLength'),
  rejected('RequestId', 'space', 'req 1', '', 'pattern'),
  rejected('RequestId', 'slash', 'req/1', '', 'pattern'),
  rejected('Problem', 'request_id with space', withAt(problem, '/request_id', 'req 1'), '/request_id', 'pattern'),
  rejected('Problem', 'type not a URI reference', withAt(problem, '/type', 'not a uri'), '/type', 'format'),
  rejected('Problem', 'instance not a URI reference', withAt(problem, '/instance', 'http://[::1'), '/instance', 'format'),
  rejected('RetryAfter', 'words', 'soon', '', 'anyOf'),
  rejected('RetryAfter', 'negative seconds', '-1', '', 'anyOf'),
  rejected('RetryAfter', 'fractional seconds', '1.5', '', 'anyOf'),
  rejected('RetryAfter', 'RFC 3339 date', AT, '', 'anyOf'),
  rejected('RetryAfter', 'a number, not a header string', 120, '', 'type'),
];

// ---- enums ---------------------------------------------------------------------------------

const enumRejected: Rejection[] = [
  rejected('MessageClassification', 'marketing', 'marketing', '', 'enum'),
  rejected('CreateSmsBulkMessageRequest', 'classification marketing', withAt(createRequest, '/classification', 'marketing'), '/classification', 'enum'),
  rejected('BulkProcessingStatus', 'delivered is not a processing state', 'delivered', '', 'enum'),
  rejected('SmsBulkMessage', 'status sent', withAt(acceptedBulk, '/status', 'sent'), '/status', 'enum'),
  rejected('IndividualMessageStatus', 'processing', 'processing', '', 'enum'),
  rejected('IndividualSmsMessage', 'status completed', withAt(individualMessage, '/status', 'completed'), '/status', 'enum'),
  rejected('RecipientStatusFilter', 'processing', 'processing', '', 'enum'),
  rejected('ProblemCode', 'unknown code', 'not_a_code', '', 'enum'),
  rejected('Problem', 'code unknown', withAt(problem, '/code', 'bad_request'), '/code', 'enum'),
];

// ---- required members ----------------------------------------------------------------------

const missing = (schema: SchemaName, base: unknown, fields: string[]): Rejection[] =>
  fields.map((field) => rejected(schema, `without ${field}`, withAt(base, `/${field}`, REMOVE), `/${field}`, 'required'));

const requiredRejected: Rejection[] = [
  ...missing('SmsBulkMessage', acceptedBulk, ['id', 'business_id', 'from', 'classification', 'status', 'settled', 'accepted_at']),
  ...missing('CreateSmsBulkMessageRequest', createRequest, ['from', 'classification', 'recipients']),
  rejected('CreateSmsBulkMessageRequest', 'recipient without to', withAt(createRequest, '/recipients/1/to', REMOVE), '/recipients/1/to', 'required'),
  ...missing('TemplateRevisionPin', { template_id: ID, revision_id: ID }, ['template_id', 'revision_id']),
  ...missing('ContractWarning', { code: 'delivery_summary_stale', detail: 'd' }, ['code', 'detail']),
  ...missing('DeliverySummary', completedBulk.delivery_summary, ['as_of', 'complete', 'outcomes_resolved']),
  ...missing('Pagination', pagination, ['limit', 'has_more']),
  ...missing('BulkRecipientPage', { data: [], pagination }, ['data', 'pagination']),
  ...missing('WalletBalance', walletBalance, [
    'business_id',
    'business_name',
    'currency',
    'current_balance',
    'available_balance',
    'reserved_balance',
    'as_of',
  ]),
  ...missing('Problem', problem, ['type', 'title', 'status', 'detail', 'code', 'request_id']),
  ...missing('ProblemFieldError', { pointer: '/x', code: 'field_invalid' }, ['pointer', 'code']),
  rejected('Problem', 'field error without code', withAt(problem, '/errors/0/code', REMOVE), '/errors/0/code', 'required'),
];

const requiredAccepted: Acceptance[] = [
  // Which fields of these two are required is not given: nothing is required.
  accepted('BulkRecipientRow', 'only to', { to: '+14155550100' }),
  accepted('IndividualSmsMessage', 'only status', { status: 'queued' }),
  accepted('SmsBulkMessage', 'without the optional members', withAt(withAt(acceptedBulk, '/warnings', REMOVE), '/intake', REMOVE)),
  accepted('Problem', 'without instance and errors', withAt(withAt(problem, '/instance', REMOVE), '/errors', REMOVE)),
];

// ---- extra members: forbidden only where the document says so -----------------------------

const extraRejected: Rejection[] = [
  rejected('SmsBulkMessage', 'extra member', { ...acceptedBulk, extra: 1 }, '/extra', 'additionalProperties'),
  rejected('SmsBulkMessage', 'extra member in intake', withAt(acceptedBulk, '/intake/extra', 1), '/intake/extra', 'additionalProperties'),
  rejected('SmsBulkMessage', 'extra member in submission', withAt(completedBulk, '/submission/extra', 1), '/submission/extra', 'additionalProperties'),
  rejected('SmsBulkMessage', 'extra member in delivery_summary', withAt(completedBulk, '/delivery_summary/extra', 1), '/delivery_summary/extra', 'additionalProperties'),
  rejected('SmsBulkMessage', 'extra member in a warning', withAt(completedBulk, '/warnings/0/extra', 1), '/warnings/0/extra', 'additionalProperties'),
  rejected('SmsBulkMessage', 'extra member in template', withAt(completedBulk, '/template/extra', 1), '/template/extra', 'additionalProperties'),
  rejected('CreateSmsBulkMessageRequest', 'extra member', { ...createRequest, schedule_at: AT }, '/schedule_at', 'additionalProperties'),
  rejected('CreateSmsBulkMessageRequest', 'extra member in a recipient', withAt(createRequest, '/recipients/0/name', 'Ada'), '/recipients/0/name', 'additionalProperties'),
  rejected('TemplateRevisionPin', 'extra member', { template_id: ID, revision_id: ID, version: 2 }, '/version', 'additionalProperties'),
  rejected('Problem', 'extra member in a field error', withAt(problem, '/errors/0/message', 'x'), '/errors/0/message', 'additionalProperties'),
];

const extraAccepted: Acceptance[] = [
  accepted('Problem', 'extension member (RFC 9457)', { ...problem, balance: '0.00', retry_hint: 5 }),
  accepted('BulkRecipientRow', 'extra member (not forbidden)', { ...recipientRow, carrier: 'x' }),
  accepted('IndividualSmsMessage', 'extra member (not forbidden)', { ...individualMessage, parts: 2 }),
  accepted('WalletBalance', 'extra member (not forbidden)', { ...walletBalance, note: 'x' }),
  accepted('Pagination', 'extra member (not forbidden)', { ...pagination, total: 3 }),
  accepted('BulkRecipientPage', 'extra member (not forbidden)', { data: [], pagination, meta: {} }),
];

// ---- types and nullability -----------------------------------------------------------------

const typeRejected: Rejection[] = [
  rejected('SmsBulkMessage', 'settled as a string', withAt(acceptedBulk, '/settled', 'false'), '/settled', 'type'),
  rejected('SmsBulkMessage', 'message as a number', withAt(acceptedBulk, '/message', 5), '/message', 'type'),
  rejected('SmsBulkMessage', 'intake as an array', withAt(acceptedBulk, '/intake', []), '/intake', 'oneOf'),
  rejected('SmsBulkMessage', 'intake count fractional', withAt(acceptedBulk, '/intake/good', 1.5), '/intake/good', 'type'),
  rejected('SmsBulkMessage', 'warnings as an object', withAt(acceptedBulk, '/warnings', {}), '/warnings', 'type'),
  rejected('SmsBulkMessage', 'delivery_summary.complete as a string', withAt(completedBulk, '/delivery_summary/complete', 'no'), '/delivery_summary/complete', 'type'),
  rejected('CreateSmsBulkMessageRequest', 'recipients as an object', withAt(createRequest, '/recipients', {}), '/recipients', 'type'),
  rejected('CreateSmsBulkMessageRequest', 'recipient as a string', withAt(createRequest, '/recipients/0', '+14155550100'), '/recipients/0', 'type'),
  rejected('CreateSmsBulkMessageRequest', 'template variable as a number', withAt(createRequest, '/recipients/0/template_variables/name', 7), '/recipients/0/template_variables/name', 'type'),
  rejected('CreateSmsBulkMessageRequest', 'body an array', [createRequest], '', 'type'),
  rejected('Pagination', 'limit as a string', withAt(pagination, '/limit', '100'), '/limit', 'type'),
  rejected('Pagination', 'has_more null', withAt(pagination, '/has_more', null), '/has_more', 'type'),
  rejected('Pagination', 'next_cursor a number', withAt(pagination, '/next_cursor', 1), '/next_cursor', 'type'),
  rejected('BulkRecipientPage', 'data as an object', { data: {}, pagination }, '/data', 'type'),
  rejected('BulkRecipientRow', 'submitted_at not a timestamp', withAt(recipientRow, '/submitted_at', 'yesterday'), '/submitted_at', 'oneOf'),
  rejected('BulkRecipientRow', 'submission_status null', withAt(recipientRow, '/submission_status', null), '/submission_status', 'type'),
  rejected('IndividualSmsMessage', 'message null', withAt(individualMessage, '/message', null), '/message', 'type'),
  rejected('Problem', 'status as a string', withAt(problem, '/status', '400'), '/status', 'type'),
  rejected('Problem', 'status fractional', withAt(problem, '/status', 400.5), '/status', 'type'),
  rejected('Problem', 'errors as an object', withAt(problem, '/errors', {}), '/errors', 'type'),
  rejected('TemplateVariables', 'an array', ['Ada'], '', 'type'),
];

const nullAccepted: Acceptance[] = [
  accepted('SmsBulkMessage', 'settled null', withAt(acceptedBulk, '/settled', null)),
  accepted('SmsBulkMessage', 'intake null (totals unavailable)', withAt(acceptedBulk, '/intake', null)),
  accepted('SmsBulkMessage', 'template and message null', withAt(acceptedBulk, '/message', null)),
  accepted('BulkRecipientRow', 'every nullable null', { ...recipientRow, status_reason: null, submitted_at: null, delivered_at: null, failed_at: null }),
  accepted('IndividualSmsMessage', 'every nullable null', { ...individualMessage, status_reason: null, template: null, submitted_at: null, delivered_at: null }),
];

// ---- exactly one of message / template_id --------------------------------------------------

const oneOfRejected: Rejection[] = [
  rejected('CreateSmsBulkMessageRequest', 'both message and template_id', { ...createRequest, template_id: ID }, '', 'oneOf'),
  rejected('CreateSmsBulkMessageRequest', 'neither message nor template_id', withAt(createRequest, '/message', REMOVE), '', 'oneOf'),
];

const oneOfAccepted: Acceptance[] = [
  accepted('CreateSmsBulkMessageRequest', 'message only', createRequest),
  accepted('CreateSmsBulkMessageRequest', 'template_id only', createFromTemplate),
];

const allRejected = [...lengthRejected, ...patternRejected, ...enumRejected, ...requiredRejected, ...extraRejected, ...typeRejected, ...oneOfRejected];
const allAccepted = [...lengthAccepted, ...patternAccepted, ...requiredAccepted, ...extraAccepted, ...nullAccepted, ...oneOfAccepted];

describe('constraints', () => {
  it.each(allAccepted)('$schema accepts $name', ({ schema, value }) => {
    expect(validate(schema, value)).toEqual([]);
  });

  it.each(allRejected)('$schema rejects $name at "$pointer" ($keyword)', ({ schema, value, pointer, keyword }) => {
    const failures = validate(schema, value);
    expect(failures.map((f) => `${f.pointer} ${f.keyword}`)).toContain(`${pointer} ${keyword}`);
  });

  it('every failure carries a document pointer and a section', () => {
    const failures = validate('CreateSmsBulkMessageRequest', withAt(createRequest, '/recipients/0/to', '123'));
    expect(failures.length).toBeGreaterThan(0);
    for (const f of failures) {
      expect(f.schemaPath).toMatch(/^#\/components\/schemas\//);
      expect(f.section).toBe('2.1');
      expect(f.in).toBe('body');
    }
  });

  it('the recipients array has no maxItems anywhere (the limit is a 422, 4.1 rule 1)', () => {
    const schema = jsonSchemaFor('CreateSmsBulkMessageRequest') as { properties: { recipients: Record<string, unknown> } };
    expect(schema.properties.recipients).toMatchObject({ type: 'array', minItems: 1 });
    expect(JSON.stringify(schema)).not.toMatch(/"maxItems"/);
    expect(schema.properties.recipients['x-semantic-limit']).toMatchObject({ maxEntries: 1000, status: 422, code: 'recipient_limit_exceeded' });
  });
});

describe('request bodies by operation', () => {
  it('createSmsBulkMessage body is the CreateSmsBulkMessageRequest schema', () => {
    expect(validateRequestBody('createSmsBulkMessage', createRequest)).toEqual([]);
    expect(validateRequestBody('createSmsBulkMessage', { ...createRequest, recipients: [] }).map((f) => f.pointer)).toContain('/recipients');
  });
  it('operations without a body reject one', () => {
    expect(validateRequestBody('getWalletBalance', undefined)).toEqual([]);
    expect(validateRequestBody('getWalletBalance', {}).map((f) => f.keyword)).toEqual(['emptyBody']);
  });
});

// ---- jsonSchemaFor: the same rules, self-contained -----------------------------------------

describe('jsonSchemaFor', () => {
  const standalone = createContractAjv();
  const metaChecked = newAjv({ strict: false });

  it.each([...schemaNames])('%s compiles alone and agrees with validate()', (name) => {
    const schema = jsonSchemaFor(name);
    expect(JSON.stringify(schema)).not.toContain('#/components/');
    const check = standalone.compile(schema);
    // The contract's ajv skips the meta-schema check at run time (spec/validators.ts): it is made here.
    expect(metaChecked.validateSchema(schema), metaChecked.errorsText(metaChecked.errors)).toBe(true);
    for (const value of validInstances[name]) expect(check(value)).toBe(true);
    for (const r of allRejected.filter((x) => x.schema === name)) expect(check(r.value)).toBe(false);
  });
});

// ---- responses -----------------------------------------------------------------------------

const json = { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'req-1' };
const problemJson = { 'content-type': 'application/problem+json', 'x-request-id': 'req-1' };
const withoutErrors = withAt(problem, '/errors', REMOVE) as Record<string, unknown>;
const limitProblem = { ...withoutErrors, status: 429, code: 'rate_limit_exceeded' };
const unavailable = (code: string) => ({ ...withoutErrors, status: 503, code });
const keys = (failures: Array<{ keyword: string; header?: string; pointer: string }>) =>
  failures.map((f) => `${f.header ?? 'body'} ${f.pointer} ${f.keyword}`);

describe('validateResponse', () => {
  it('accepts a 202 with X-Request-Id, Location and the acceptance body', () => {
    expect(validateResponse('createSmsBulkMessage', 202, { ...json, location: `/v1/businesses/${ID}/sms/bulk-messages/${ID}` }, acceptedBulk)).toEqual([]);
  });
  it('fails a 202 without Location', () => {
    const failures = validateResponse('createSmsBulkMessage', 202, json, acceptedBulk);
    expect(keys(failures)).toEqual(['Location  required']);
    expect(failures[0]!.section).toBe('4.1');
  });
  it('fails any response without X-Request-Id, header names matched case-insensitively', () => {
    expect(keys(validateResponse('getWalletBalance', 200, { 'Content-Type': 'application/json' }, walletBalance))).toEqual(['X-Request-Id  required']);
    expect(validateResponse('getWalletBalance', 200, { 'Content-Type': 'application/json', 'X-REQUEST-ID': 'a' }, walletBalance)).toEqual([]);
  });
  it('fails an X-Request-Id that breaks its pattern', () => {
    expect(keys(validateResponse('getWalletBalance', 200, { ...json, 'x-request-id': 'a b' }, walletBalance))).toEqual(['X-Request-Id  pattern']);
  });
  it('fails a 429 without Retry-After and accepts one with seconds or an HTTP-date', () => {
    expect(keys(validateResponse('getSmsMessage', 429, problemJson, limitProblem))).toEqual(['Retry-After  required']);
    expect(validateResponse('getSmsMessage', 429, { ...problemJson, 'retry-after': '30' }, limitProblem)).toEqual([]);
    expect(validateResponse('createSmsBulkMessage', 429, { ...problemJson, 'retry-after': 'Sun, 06 Nov 1994 08:49:37 GMT' }, limitProblem)).toEqual([]);
    expect(keys(validateResponse('createSmsBulkMessage', 429, { ...problemJson, 'retry-after': 'soon' }, limitProblem))).toContain('Retry-After  anyOf');
  });
  it('requires Retry-After on a 503 service_unavailable, not on balance_unavailable', () => {
    expect(keys(validateResponse('createSmsBulkMessage', 503, problemJson, unavailable('service_unavailable')))).toEqual(['Retry-After  required']);
    expect(keys(validateResponse('getWalletBalance', 503, problemJson, unavailable('service_unavailable')))).toEqual(['Retry-After  required']);
    expect(validateResponse('getWalletBalance', 503, problemJson, unavailable('balance_unavailable'))).toEqual([]);
  });
  it('fails a 204 with a body and accepts an empty one', () => {
    expect(validateResponse('deactivateWebhookEndpoint', 204, { 'x-request-id': 'r' }, undefined, '')).toEqual([]);
    expect(keys(validateResponse('deactivateWebhookEndpoint', 204, { 'x-request-id': 'r' }, {}, '{}'))).toEqual(['body  emptyBody']);
    expect(keys(validateResponse('deactivateWebhookEndpoint', 204, { 'x-request-id': 'r' }, undefined, 'ok'))).toEqual(['body  emptyBody']);
  });
  it('fails a problem sent as application/json', () => {
    const failures = validateResponse('getSmsMessage', 404, json, { ...problem, status: 404, code: 'resource_not_found' });
    expect(keys(failures)).toEqual(['Content-Type  contentType']);
    expect(failures[0]!.params.expected).toEqual(['application/problem+json']);
  });
  it('uses default (problem details) for statuses an operation does not list', () => {
    expect(validateResponse('listSmsBulkMessageRecipients', 404, problemJson, { ...problem, status: 404, code: 'resource_not_found' })).toEqual([]);
    expect(keys(validateResponse('listSmsBulkMessageRecipients', 418, problemJson, { title: 'x' }))).toContain('body /type required');
  });
  it('fails a response timestamp with +02:00', () => {
    const body = withAt(acceptedBulk, '/accepted_at', '2024-05-01T12:00:00+02:00');
    const failures = validateResponse('getSmsBulkMessage', 200, json, body);
    expect(keys(failures)).toEqual(['body /accepted_at pattern']);
    expect(failures[0]!.schemaPath).toBe('#/components/schemas/Timestamp/pattern');
  });
  it('fails a body that is missing or not JSON', () => {
    expect(keys(validateApiResponse('getWalletBalance', { status: 200, headers: json, json: undefined, text: '<html>' }))).toEqual(['body  json']);
    expect(keys(validateApiResponse('getWalletBalance', { status: 200, headers: json, json: undefined, text: '' }))).toEqual(['body  json']);
  });
  it('checks the listing page and the individual message bodies', () => {
    expect(validateResponse('listSmsBulkMessageRecipients', 200, json, { data: [recipientRow], pagination })).toEqual([]);
    expect(keys(validateResponse('listSmsBulkMessageRecipients', 200, json, { data: [recipientRow] }))).toEqual(['body /pagination required']);
    expect(validateResponse('getSmsMessage', 200, json, individualMessage)).toEqual([]);
  });
});
