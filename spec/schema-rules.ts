// Which catalogue rule a response body's schema failure breaks, by the component schema it failed
// in: shared by the suites' sweep and the traffic judge so that both name the same rule.
import type { RequirementId } from './requirement-ids.ts';

/** Component schemas whose failures belong to one catalogue rule, most specific first. */
export const COMPONENT_RULES: ReadonlyArray<readonly [string, RequirementId]> = [
  ['Timestamp', 'SCH-UTC-TIMESTAMPS'],
  ['UuidV7', 'SCH-UUIDV7'],
  ['E164PhoneNumber', 'SCH-E164'],
  ['SenderId', 'SCH-SENDER-ID'],
  ['MessageClassification', 'SCH-CLASSIFICATION'],
  ['TemplateRevisionPin', 'SCH-TEMPLATE-PIN'],
  ['BulkIntake', 'SCH-INTAKE-FIELDS'],
  ['BulkSubmission', 'SCH-SUBMISSION-FIELDS'],
  ['ContractWarning', 'SCH-WARNING-SHAPE'],
  ['DeliverySummary', 'BULK-DELIVERY-SUMMARY-FIELDS'],
  ['BulkProcessingStatus', 'BULK-STATUS-VALUES'],
  ['Pagination', 'SCH-PAGINATION'],
  ['BulkRecipientRow', 'SCH-ROW-FIELDS'],
  ['BulkRecipientPage', 'SCH-LISTING-ENVELOPE'],
];

/** The same, with the individual message's status values (the traffic judge sees message reads). */
export const COMPONENT_RULES_WITH_MESSAGES: ReadonlyArray<readonly [string, RequirementId]> = [
  ...COMPONENT_RULES.slice(0, COMPONENT_RULES.findIndex(([c]) => c === 'BulkProcessingStatus') + 1),
  ['IndividualMessageStatus', 'MSG-STATUS-VALUES'],
  ...COMPONENT_RULES.slice(COMPONENT_RULES.findIndex(([c]) => c === 'BulkProcessingStatus') + 1),
];
