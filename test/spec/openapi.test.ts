// The OpenAPI document itself: valid OpenAPI 3.1, every item traced to a section, and the
// document-wide rules (paths, headers, problem defaults, assumed names) held in one place.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import {
  contractSha256,
  contractVersion,
  openapi,
  operationIds,
  resolveRef,
  schemaNames,
  type HeaderObject,
  type OperationObject,
  type ParameterObject,
  type ResponseObject,
} from '../../spec/contract.ts';
import { compileAll, operation } from '../../spec/validators.ts';
import { PROBLEM_CODE_STATUS, problemCodes, RETRY_AFTER_CODES } from '../../spec/problem-codes.ts';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const operations: Array<{ path: string; method: string; op: OperationObject }> = Object.entries(openapi.paths).flatMap(
  ([path, item]) => METHODS.flatMap((method) => (item[method] ? [{ path, method, op: item[method]! }] : [])),
);

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(openapi) as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('declares the 2020-12 dialect and the draft version', () => {
    expect(openapi.openapi).toBe('3.1.0');
    expect(openapi.jsonSchemaDialect).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(contractVersion).toBe('0.1.0-draft');
  });

  it('fingerprints openapi.yaml then requirements.yaml', () => {
    const expected = createHash('sha256')
      .update(readFileSync(new URL('../../spec/openapi.yaml', import.meta.url)))
      .update(readFileSync(new URL('../../spec/requirements.yaml', import.meta.url)))
      .digest('hex');
    expect(contractSha256).toBe(expected);
    expect(contractSha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('has exactly the operations of section 4', () => {
    expect(operations.map((o) => o.op.operationId).sort()).toEqual([...operationIds].sort());
  });

  it('has exactly the named component schemas, all compiling in strict mode', () => {
    expect(Object.keys(openapi.components.schemas).sort()).toEqual([...schemaNames].sort());
    expect(() => compileAll()).not.toThrow();
  });

  it('puts x-section on every operation and every schema', () => {
    for (const { op } of operations) expect(op['x-section'], op.operationId).toMatch(/^\d+(\.\d+)?$/);
    for (const [name, schema] of Object.entries(openapi.components.schemas)) {
      expect(schema['x-section'], name).toMatch(/^\d+(\.\d+)?$/);
    }
  });

  it('keeps every path under /v1/businesses/{businessId}/', () => {
    for (const path of Object.keys(openapi.paths)) expect(path.startsWith('/v1/businesses/{businessId}/'), path).toBe(true);
    expect(Object.keys(openapi.paths).some((p) => p.includes('/sms/batches'))).toBe(false);
  });

  it('maps each operation to its path and method (4.1-4.6)', () => {
    const table = operationIds.map((id) => {
      const { method, path, section } = operation(id);
      return `${section} ${method.toUpperCase()} ${path}`;
    });
    expect(table).toEqual([
      '4.1 POST /v1/businesses/{businessId}/sms/bulk-messages',
      '4.2 GET /v1/businesses/{businessId}/sms/bulk-messages/{bulkMessageId}',
      '4.3 GET /v1/businesses/{businessId}/sms/bulk-messages/{bulkMessageId}/messages',
      '4.4 GET /v1/businesses/{businessId}/sms/messages/{messageId}',
      '4.5 GET /v1/businesses/{businessId}/wallet/balance',
      '4.6 DELETE /v1/businesses/{businessId}/webhook-endpoints/{endpointId}',
    ]);
  });

  it('types every path parameter as UuidV7 and requires it', () => {
    for (const id of operationIds) {
      const { path, parameters } = operation(id);
      const inPath = parameters.filter((p) => p.in === 'path');
      expect(inPath.map((p) => `{${p.name}}`).sort(), id).toEqual((path.match(/\{[^}]+\}/g) ?? []).sort());
      for (const p of inPath) {
        expect(p.required, `${id} ${p.name}`).toBe(true);
        expect(p.schema, `${id} ${p.name}`).toEqual({ $ref: '#/components/schemas/UuidV7' });
      }
    }
  });

  it('accepts X-Request-Id on every request and requires Idempotency-Key on bulk submission only', () => {
    for (const id of operationIds) {
      const headers = operation(id).parameters.filter((p) => p.in === 'header');
      const requestId = headers.find((p) => p.name === 'X-Request-Id');
      expect(requestId?.required, id).toBe(false);
      const key = headers.find((p) => p.name === 'Idempotency-Key');
      if (id === 'createSmsBulkMessage') expect(key?.required).toBe(true);
      else expect(key, id).toBeUndefined();
    }
  });

  it('names the four listing query parameters as assumptions', () => {
    const query = operation('listSmsBulkMessageRecipients').parameters.filter((p) => p.in === 'query');
    expect(query.map((p) => p.name)).toEqual(['limit', 'cursor', 'status', 'to']);
    for (const p of query) {
      expect(p['x-assumed-name'], p.name).toBe(true);
      expect(p.required, p.name).toBe(false);
    }
    const limit = query.find((p) => p.name === 'limit') as ParameterObject;
    expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000, default: 100 });
  });

  it('requires X-Request-Id on every response and gives every operation a problem default', () => {
    for (const id of operationIds) {
      const { responses } = operation(id);
      expect(Object.keys(responses), id).toContain('default');
      expect(Object.keys(responses.default!.content ?? {}), id).toEqual(['application/problem+json']);
      for (const [status, response] of Object.entries(responses)) {
        const declared = response.headers?.['X-Request-Id'];
        expect(declared, `${id} ${status}`).toBeDefined();
        expect(resolveRef<HeaderObject>(declared!).required, `${id} ${status}`).toBe(true);
      }
    }
  });

  it('uses application/json for successes and application/problem+json for errors; 204 has no content', () => {
    for (const id of operationIds) {
      for (const [status, response] of Object.entries(operation(id).responses) as Array<[string, ResponseObject]>) {
        const media = Object.keys(response.content ?? {});
        if (status === '204') expect(media, `${id} ${status}`).toEqual([]);
        else if (status.startsWith('2')) expect(media, `${id} ${status}`).toEqual(['application/json']);
        else expect(media, `${id} ${status}`).toEqual(['application/problem+json']);
      }
    }
  });

  it('lists every status of 4.1 for bulk submission, with Location on 202 and Retry-After on 429/503', () => {
    const { responses } = operation('createSmsBulkMessage');
    expect(Object.keys(responses).sort()).toEqual(['202', '400', '401', '403', '409', '422', '429', '500', '503', 'default']);
    expect(resolveRef<HeaderObject>(responses['202']!.headers!.Location!).required).toBe(true);
    expect(resolveRef<HeaderObject>(responses['429']!.headers!['Retry-After']!).required).toBe(true);
    expect(resolveRef<HeaderObject>(responses['503']!.headers!['Retry-After']!).required).toBe(true);
    expect(responses['422']!['x-problem-codes']).toEqual(['recipient_limit_exceeded', 'template_not_active', 'invalid_recipient']);
  });

  it('gives each problem code the status of section 7, and every response table agrees with it', () => {
    const schema = openapi.components.schemas.ProblemCode as { enum: string[] };
    expect([...problemCodes].sort()).toEqual([...schema.enum].sort());
    expect(Object.fromEntries(PROBLEM_CODE_STATUS)).toEqual({
      validation_failed: 400,
      authentication_required: 401,
      permission_denied: 403,
      sender_not_authorized: 403,
      resource_not_found: 404,
      idempotency_conflict: 409,
      recipient_limit_exceeded: 422,
      template_not_active: 422,
      invalid_recipient: 422,
      rate_limit_exceeded: 429,
      internal_error: 500,
      service_unavailable: 503,
      balance_unavailable: 503,
    });
    expect(problemCodes.filter((c) => !PROBLEM_CODE_STATUS.has(c)).every((c) => c.startsWith('otp_'))).toBe(true);
    expect([...RETRY_AFTER_CODES].sort()).toEqual(['rate_limit_exceeded', 'service_unavailable']);
    for (const { op } of operations) {
      for (const [status, ref] of Object.entries(op.responses)) {
        const response = resolveRef<ResponseObject>(ref);
        for (const code of response['x-problem-codes'] ?? []) {
          expect(PROBLEM_CODE_STATUS.get(code), `${op.operationId} ${status} ${code}`).toBe(Number(status));
          if (RETRY_AFTER_CODES.includes(code)) expect(response.headers?.['Retry-After'], `${op.operationId} ${status}`).toBeDefined();
        }
      }
    }
  });

  it('returns 204 with no content from deactivation', () => {
    expect(operation('deactivateWebhookEndpoint').responses['204']!.content).toBeUndefined();
  });

  it('declares OAuth2 client credentials with a placeholder token URL', () => {
    const scheme = openapi.components.securitySchemes.clientCredentials as Record<string, unknown> & {
      flows: { clientCredentials: { tokenUrl: string; scopes: object } };
    };
    expect(scheme.type).toBe('oauth2');
    expect(scheme['x-token-url-template']).toBe('{auth_url}/oauth2/token');
    expect(scheme.flows.clientCredentials.tokenUrl).toMatch(/\/oauth2\/token$/);
    expect(scheme.flows.clientCredentials.scopes).toEqual({});
    expect(openapi.security).toEqual([{ clientCredentials: [] }]);
  });

  it('forbids extra members exactly where the document says "no extra properties"', () => {
    const closed: string[] = [];
    const walk = (node: unknown, pointer: string) => {
      if (!node || typeof node !== 'object') return;
      if ((node as Record<string, unknown>).additionalProperties === false) closed.push(pointer);
      for (const [key, value] of Object.entries(node)) walk(value, `${pointer}/${key}`);
    };
    walk(openapi.components.schemas, '');
    expect(closed.sort()).toEqual(
      [
        '/TemplateRevisionPin',
        '/ContractWarning',
        '/BulkIntake',
        '/BulkSubmission',
        '/DeliverySummary',
        '/SmsBulkMessage',
        '/CreateSmsBulkMessageRequest',
        '/BulkRecipient',
        '/ProblemFieldError',
      ].sort(),
    );
  });

  it('states its assumptions where the document leaves required fields unstated', () => {
    for (const name of ['WalletBalance', 'Pagination', 'BulkRecipientRow', 'IndividualSmsMessage'] as const) {
      expect(typeof openapi.components.schemas[name]['x-assumption'], name).toBe('string');
    }
    expect(openapi.components.schemas.BulkRecipientRow.required).toBeUndefined();
    expect(openapi.components.schemas.IndividualSmsMessage.required).toBeUndefined();
  });
});
