// Every answer of a documented operation (2xx) against the operation's response schemas, headers
// and media type, with the same validators the suites use (spec/validators.ts). Problem answers
// are the problem-details rules' to judge; X-Request-Id and Location belong to their own rules.
import { operationIds, type OperationId } from '../../spec/contract.ts';
import type { RequirementId } from '../../spec/requirement-ids.ts';
import { COMPONENT_RULES_WITH_MESSAGES } from '../../spec/schema-rules.ts';
import { validateResponse, type SchemaFailure } from '../../spec/validators.ts';
import type { Observed } from '../context.ts';
import type { CheckDef, Reducer, Verdicts } from '../verdicts.ts';

/** One check per operation, so a failure of one operation's answers never hides another's. */
const idOf = (operationId: OperationId) => `traffic/schemas/${operationId}`;
export const SCHEMA_CHECK_IDS = operationIds.map(idOf);

const COMMON = ['SCH-RESPONSE-SCHEMAS', 'SCH-JSON-MEDIA-TYPE', 'SCH-NO-EXTRA-PROPERTIES', 'SCH-UTC-TIMESTAMPS', 'SCH-UUIDV7'] as const;
const OWN: Record<OperationId, RequirementId[]> = {
  createSmsBulkMessage: ['SCH-BULK-REQUIRED', 'SCH-BULK-FIELD-TYPES', 'BULK-STATUS-VALUES', 'BULK-DELIVERY-SUMMARY-FIELDS', 'SCH-CLASSIFICATION', 'SCH-SENDER-ID', 'SCH-TEMPLATE-PIN', 'SCH-INTAKE-FIELDS', 'SCH-SUBMISSION-FIELDS', 'SCH-WARNING-SHAPE'],
  getSmsBulkMessage: ['SCH-BULK-REQUIRED', 'SCH-BULK-FIELD-TYPES', 'BULK-STATUS-VALUES', 'BULK-DELIVERY-SUMMARY-FIELDS', 'SCH-CLASSIFICATION', 'SCH-SENDER-ID', 'SCH-TEMPLATE-PIN', 'SCH-INTAKE-FIELDS', 'SCH-SUBMISSION-FIELDS', 'SCH-WARNING-SHAPE'],
  listSmsBulkMessageRecipients: ['SCH-LISTING-ENVELOPE', 'SCH-PAGINATION', 'SCH-ROW-FIELDS', 'SCH-E164'],
  getSmsMessage: ['MSG-SCHEMA', 'MSG-STATUS-VALUES', 'SCH-E164'],
  getWalletBalance: ['WAL-SCHEMA', 'WAL-MONEY-FORMAT', 'WAL-CURRENCY-FORMAT', 'WAL-AS-OF-UTC'],
  deactivateWebhookEndpoint: ['HOOK-DEACTIVATE-204'],
};

export const checks: CheckDef[] = operationIds.map((operationId) => ({
  id: idOf(operationId),
  topic: 'schemas',
  title: `every 2xx answer of ${operationId} has its declared status, media type, headers and body schema`,
  requirements: [...COMMON, ...OWN[operationId]],
}));


/** Which rule a failure breaks (wallet and message members first: their own rules name them). */
function ruleOf(f: SchemaFailure, operationId: OperationId): RequirementId | undefined {
  // A deactivation answers 204 and nothing else: any difference breaks that one rule.
  if (operationId === 'deactivateWebhookEndpoint' && (f.in !== 'header' || (f.header ?? '').toLowerCase() === 'content-type')) return 'HOOK-DEACTIVATE-204';
  if (f.in === 'header') {
    const header = (f.header ?? '').toLowerCase();
    if (header === 'content-type') return 'SCH-JSON-MEDIA-TYPE';
    return undefined; // X-Request-Id, Location: their own rules
  }
  if (operationId === 'getWalletBalance') {
    if (f.schemaPath.includes('/DecimalMoney/')) return 'WAL-MONEY-FORMAT';
    if (f.pointer === '/currency') return 'WAL-CURRENCY-FORMAT';
    if (f.pointer === '/as_of') return 'WAL-AS-OF-UTC';
    if (f.keyword !== 'additionalProperties') return 'WAL-SCHEMA';
  }
  // A message's members are its own rule (status values apart), whatever component they use.
  if (operationId === 'getSmsMessage' && f.keyword !== 'additionalProperties') return f.schemaPath.includes('/IndividualMessageStatus/') ? 'MSG-STATUS-VALUES' : 'MSG-SCHEMA';
  if (f.keyword === 'additionalProperties') return 'SCH-NO-EXTRA-PROPERTIES';
  for (const [component, rule] of COMPONENT_RULES_WITH_MESSAGES) if (f.schemaPath.includes(`/components/schemas/${component}/`)) return rule;
  if (operationId === 'getSmsMessage') return 'MSG-SCHEMA';
  if (f.schemaPath.includes('/components/schemas/SmsBulkMessage/')) return f.keyword === 'required' ? 'SCH-BULK-REQUIRED' : 'SCH-BULK-FIELD-TYPES';
  return 'SCH-RESPONSE-SCHEMAS';
}

/** A nullable member failing its object branch also fails `null` and `oneOf`: keep the specific one. */
function specific(failures: SchemaFailure[]): SchemaFailure[] {
  const noise = (f: SchemaFailure) => f.keyword === 'oneOf' || f.keyword === 'anyOf' || (f.keyword === 'type' && f.params.type === 'null');
  const rest = failures.filter((f) => !noise(f));
  return rest.length > 0 ? rest : failures;
}

export function start(v: Verdicts): Reducer {
  const see = (o: Observed): void => {
    if (!o.op || o.pacing || o.status < 200 || o.status >= 300) return;
    const ID = idOf(o.op.operationId);
    if (!o.responseKnown) {
      v.note(ID, 'answers whose body the recorder cut short were judged on status and headers only');
    }
    const body = o.responseKnown ? o.json : undefined;
    const text = o.responseKnown ? (o.ex.response.body ?? '') : undefined;
    let failures = validateResponse(o.op.operationId, o.status, o.ex.response.headers, body, text);
    // A cut body is not known: only what the status and headers show is judged.
    if (!o.responseKnown) failures = failures.filter((f) => f.in !== 'body');
    const judged = specific(failures)
      .map((f) => ({ f, rule: ruleOf(f, o.op!.operationId) }))
      .filter((x): x is { f: SchemaFailure; rule: RequirementId } => x.rule !== undefined);
    const first = judged[0];
    if (!first) v.pass(ID);
    else {
      v.fail(ID, first.rule, `${o.op.operationId} ${o.status} as the document shapes it (${first.f.schemaPath})`, `${first.f.pointer || '(document)'} ${first.f.message}`, [o]);
    }
  };
  return { see };
}
