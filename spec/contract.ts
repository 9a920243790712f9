// The API document (spec/openapi.yaml), loaded once, with the version and fingerprint the reports
// carry. Paths are resolved from this module so it also works from an installed package.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readSpecDocument } from './documents.ts';

/** A JSON Schema object as written in the document (2020-12 dialect plus `x-` notes). */
export type JsonSchema = { [keyword: string]: unknown };

export interface HeaderObject {
  description?: string;
  required?: boolean;
  schema: JsonSchema;
  'x-section'?: string;
  /** Required only when the problem body carries one of these codes. */
  'x-required-for-codes'?: string[];
  [extension: `x-${string}`]: unknown;
}

export interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  description?: string;
  schema: JsonSchema;
  'x-section'?: string;
  'x-assumed-name'?: boolean;
}

export interface MediaTypeObject {
  schema: JsonSchema;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject | Ref>;
  content?: Record<string, MediaTypeObject>;
  'x-problem-codes'?: string[];
}

export interface OperationObject {
  operationId: string;
  summary?: string;
  'x-section': string;
  parameters?: Array<ParameterObject | Ref>;
  requestBody?: { required?: boolean; content: Record<string, MediaTypeObject> };
  responses: Record<string, ResponseObject | Ref>;
  [extension: `x-${string}`]: unknown;
}

export interface Ref {
  $ref: string;
}

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export type PathItem = { parameters?: Array<ParameterObject | Ref> } & Partial<Record<HttpMethod, OperationObject>>;

export interface OpenApiDocument {
  openapi: string;
  jsonSchemaDialect: string;
  info: { title: string; version: string; [k: string]: unknown };
  paths: Record<string, PathItem>;
  components: {
    schemas: Record<SchemaName, JsonSchema>;
    parameters: Record<string, ParameterObject>;
    headers: Record<string, HeaderObject>;
    responses: Record<string, ResponseObject>;
    securitySchemes: Record<string, unknown>;
  };
  [k: string]: unknown;
}

/** Every schema of sections 2 and 7 under components.schemas (a test keeps this list equal). */
export const schemaNames = [
  'UuidV7',
  'Timestamp',
  'ClientTimestamp',
  'SenderId',
  'MessageClassification',
  'E164PhoneNumber',
  'TemplateVariables',
  'TemplateRevisionPin',
  'DecimalMoney',
  'BulkProcessingStatus',
  'ContractWarning',
  'BulkIntake',
  'BulkSubmission',
  'DeliverySummary',
  'SmsBulkMessage',
  'CreateSmsBulkMessageRequest',
  'BulkRecipient',
  'BulkRecipientRow',
  'Pagination',
  'BulkRecipientPage',
  'RecipientStatusFilter',
  'IndividualMessageStatus',
  'IndividualSmsMessage',
  'WalletBalance',
  'Problem',
  'ProblemCode',
  'ProblemFieldError',
  'RequestId',
  'IdempotencyKey',
  'RetryAfter',
] as const;
export type SchemaName = (typeof schemaNames)[number];

/** The operations of section 4 (a test keeps this list equal to the document's). */
export const operationIds = [
  'createSmsBulkMessage',
  'getSmsBulkMessage',
  'listSmsBulkMessageRecipients',
  'getSmsMessage',
  'getWalletBalance',
  'deactivateWebhookEndpoint',
] as const;
export type OperationId = (typeof operationIds)[number];

const openapiBytes = readFileSync(new URL('./openapi.yaml', import.meta.url));
const requirementsBytes = readFileSync(new URL('./requirements.yaml', import.meta.url));

export const openapi: OpenApiDocument = readSpecDocument('openapi.yaml') as OpenApiDocument;

/** Version of the interface description (info.version). */
export const contractVersion: string = openapi.info.version;

/** Fingerprint of the contract data: sha256 over openapi.yaml then requirements.yaml bytes. */
export const contractSha256: string = createHash('sha256')
  .update(openapiBytes)
  .update(requirementsBytes)
  .digest('hex');

export function isSchemaName(name: string): name is SchemaName {
  return (schemaNames as readonly string[]).includes(name);
}

export function isRef(x: unknown): x is Ref {
  return typeof x === 'object' && x !== null && typeof (x as Ref).$ref === 'string';
}

/** Follows a local `#/...` reference inside the document. */
export function resolveRef<T>(x: T | Ref): T {
  let current: unknown = x;
  for (let hops = 0; isRef(current); hops++) {
    if (hops > 10 || !current.$ref.startsWith('#/')) throw new Error(`unresolvable reference ${current.$ref}`);
    current = current.$ref
      .slice(2)
      .split('/')
      .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, token) => (node as Record<string, unknown>)[token], openapi);
    if (current === undefined) throw new Error(`dangling reference ${(x as Ref).$ref}`);
  }
  return current as T;
}

/** The values of an enum component schema (BulkProcessingStatus, IndividualMessageStatus, ...). */
export function enumOf(schemaName: SchemaName): readonly string[] {
  const values = openapi.components.schemas[schemaName].enum;
  if (!Array.isArray(values)) throw new Error(`${schemaName} is not an enum schema`);
  return values as string[];
}
