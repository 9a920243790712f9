// 4.1 body schema of createSmsBulkMessage, checked field by field so every failure names its
// JSON Pointer (7: errors[]). Cross-resource rules (sender, template) come later in the handler.
import type { ActiveDefects } from '../defects.ts';
import type { FieldError } from '../problems.ts';
import { UUID_V7 } from '../ids.ts';
import { isObject } from '../../core/json.ts';

export const MAX_RECIPIENTS = 1000;
export const E164 = /^\+[1-9]\d{7,14}$/;
const CLASSIFICATIONS = new Set(['transactional', 'promotional']);
const BODY_FIELDS = new Set(['from', 'classification', 'message', 'template_id', 'recipients']);
const RECIPIENT_FIELDS = new Set(['to', 'template_variables']);

export interface BulkBody {
  from: string;
  classification: 'transactional' | 'promotional';
  message?: string;
  template_id?: string;
  recipients: Array<{ to: string; template_variables?: Record<string, string> }>;
}

/** JSON Pointer token escaping (RFC 6901). */
export const token = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Length in characters (code points), as JSON Schema counts it. */
export const chars = (s: string) => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};


/** 2.1 E164PhoneNumber: pattern and length 9 to 16. */
export function isE164(v: unknown): v is string {
  return typeof v === 'string' && E164.test(v) && v.length >= 9 && v.length <= 16;
}

export function validateBulkBody(body: unknown, defects: ActiveDefects): FieldError[] {
  const errors: FieldError[] = [];
  const bad = (pointer: string) => errors.push({ pointer, code: 'field_invalid' });
  // 7: every item has a code (the blind5 defect has none for a required member that is absent).
  const absent = (pointer: string) => errors.push({ pointer, code: null as unknown as string });
  const missingCodeNull = defects.has('blind5-missing-member-error-code-null');
  if (!isObject(body)) {
    bad('');
    return errors;
  }
  // 4.1: no extra properties.
  if (!defects.has('extra-body-property-accepted')) {
    // 7: RFC 6901 pointers escape / as ~1 (the blind defect writes member names as they are).
    for (const key of Object.keys(body)) if (!BODY_FIELDS.has(key)) bad(`/${defects.has('blind3-pointer-slash-unescaped') ? key : token(key)}`);
  }
  const from = body.from;
  // 8: 1 to 20 (the blind defect takes the maximum as exclusive).
  const maxFrom = defects.has('blind4-from-max-19') ? 19 : 20;
  if (from === undefined && missingCodeNull) absent('/from');
  else if (typeof from !== 'string' || chars(from) < 1 || chars(from) > maxFrom) bad('/from');
  // 4.1: classification is required (the blind defect's schema supplies a default).
  if (defects.has('blind4-classification-defaulted') && !('classification' in body)) body.classification = 'transactional';
  // 2.1: the two words exactly (the blind defect matches them in any case and stores them lower-cased).
  if (defects.has('blind-classification-case-insensitive') && typeof body.classification === 'string' && CLASSIFICATIONS.has(body.classification.toLowerCase())) {
    body.classification = body.classification.toLowerCase();
  }
  // 7: a client fault is a 4xx (the defect looks the delivery route up before the enum check, and throws).
  if (defects.has('unknown-classification-500') && typeof body.classification === 'string' && !CLASSIFICATIONS.has(body.classification)) {
    throw new Error(`no delivery route for classification ${body.classification}`);
  }
  if (body.classification === undefined && missingCodeNull) absent('/classification');
  else if (typeof body.classification !== 'string' || !CLASSIFICATIONS.has(body.classification)) bad('/classification');
  // 4.1: a member given as null is given (the blind defect takes message: null for no message).
  if (defects.has('blind-null-message-ignored') && body.message === null) delete body.message;
  const hasMessage = 'message' in body;
  const hasTemplate = 'template_id' in body;
  // 4.1: exactly one of message / template_id.
  if (hasMessage === hasTemplate && !(hasMessage && defects.has('both-message-and-template-accepted'))) {
    bad('/message');
    bad('/template_id');
  }
  if (hasMessage) {
    const m = body.message;
    // 8: up to 4096 (the blind defect takes the limit as exclusive).
    const max = defects.has('message-4097-accepted') ? 4097 : defects.has('blind-message-max-4095') ? 4095 : 4096;
    // 8: characters (the blind defect counts UTF-8 bytes).
    // (Another blind defect counts UTF-16 code units, JavaScript's length.)
    const length = (s: string) => (defects.has('blind-message-length-in-bytes') ? Buffer.byteLength(s) : defects.has('blind4-message-length-utf16') ? s.length : chars(s));
    // 8: any 1 to 4096 characters (the blind defect refuses a blank message).
    const blank = typeof m === 'string' && m.trim() === '' && defects.has('blind3-blank-message-refused');
    // (The defect's renderer trims the text and indexes its first character: a blank message throws.)
    if (typeof m === 'string' && length(m) > 0 && m.trim() === '' && defects.has('blank-message-500')) throw new TypeError("Cannot read properties of undefined (reading 'codePointAt')");
    // (The defect's segmenter sizes its buffer one short and throws on a message of the maximum.)
    if (typeof m === 'string' && length(m) === max && defects.has('message-at-maximum-500')) throw new RangeError('segment buffer overflow');
    if (typeof m !== 'string' || length(m) < 1 || length(m) > max || blank) bad('/message');
  }
  if (hasTemplate && (typeof body.template_id !== 'string' || !UUID_V7.test(body.template_id))) bad('/template_id');
  // 4.1: recipients is an array (the blind defect wraps a single object into one).
  if (defects.has('blind3-recipients-object-wrapped') && isObject(body.recipients)) body.recipients = [body.recipients];
  // 4.1: an entry without its number is refused (the blind5 defect drops such entries and goes on).
  if (defects.has('blind5-recipient-null-to-dropped') && Array.isArray(body.recipients)) body.recipients = body.recipients.filter((r) => !(isObject(r) && (r.to === null || r.to === undefined)));
  const recipients = body.recipients;
  if (!Array.isArray(recipients)) {
    bad('/recipients');
    return errors;
  }
  // 8: 1 to 1000 recipients (above the maximum is answered earlier with 422).
  if (recipients.length === 0 && !defects.has('zero-recipients-accepted')) bad('/recipients');
  recipients.forEach((item, i) => {
    const at = `/recipients/${i}`;
    // 7: a null entry is the caller's fault (the blind defect reads its number unguarded, which throws).
    if (item === null && defects.has('blind3-null-recipient-500')) throw new TypeError("Cannot read properties of null (reading 'to')");
    if (!isObject(item)) return void bad(at);
    // 4.1: no extra properties in an entry (the blind defect ignores them).
    if (!defects.has('blind-recipient-extra-member-accepted')) for (const key of Object.keys(item)) if (!RECIPIENT_FIELDS.has(key)) bad(`${at}/${token(key)}`);
    // 2.1: the pattern admits no spaces (the blind defect strips them and keeps the number).
    if (defects.has('blind-recipient-spaces-normalized') && typeof item.to === 'string' && / /.test(item.to) && isE164(item.to.replace(/ /g, ''))) {
      item.to = item.to.replace(/ /g, '');
    }
    const to = item.to;
    const lenient =
      ((defects.has('invalid-e164-accepted') || defects.has('malformed-numbers-get-rows')) && typeof to === 'string' && /^[1-9]\d{7,14}$/.test(to)) ||
      // 2.1: the first digit is 1-9 (the blind defect's pattern takes any digit).
      (defects.has('blind-e164-leading-zero-accepted') && typeof to === 'string' && /^\+\d{8,15}$/.test(to)) ||
      // 2.1: at most 15 digits (the blind defect's pattern allows 16).
      (defects.has('blind4-e164-sixteen-digits') && typeof to === 'string' && /^\+[1-9]\d{7,15}$/.test(to)) ||
      // 2.1: ASCII digits (the blind5 defect's pattern takes any Unicode decimal digit, full-width ones included).
      (defects.has('blind5-recipient-fullwidth-digits-accepted') && typeof to === 'string' && /^\+[1-9\uFF11-\uFF19][0-9\uFF10-\uFF19]{7,14}$/.test(to)) ||
      // 2.1: nothing after the digits (the blind5 defect's $ also matches before a final line feed).
      (defects.has('blind5-recipient-trailing-newline-accepted') && typeof to === 'string' && /^\+[1-9]\d{7,14}\n$/.test(to));
    if (to === undefined && missingCodeNull) return void absent(`${at}/to`);
    if (!isE164(to) && !lenient) bad(`${at}/to`);
    if ('template_variables' in item) {
      const vars = item.template_variables;
      // 2.1: an object (the blind defect's typeof check also lets an array through).
      const arrayTaken = Array.isArray(vars) && defects.has('blind3-template-variables-array-accepted');
      // (The defect iterates the variables with for...of, which throws on a boolean or a number.)
      if ((typeof vars === 'boolean' || typeof vars === 'number') && defects.has('template-variables-scalar-500')) throw new TypeError('vars is not iterable');
      if (!isObject(vars) && !arrayTaken) return void bad(`${at}/template_variables`);
      // 8: at most 512 (the blind defect takes the limit as exclusive).
      const max = defects.has('template-variable-513-accepted') ? 513 : defects.has('blind-template-variable-max-511') ? 511 : 512;
      for (const [key, value] of Object.entries(vars as Record<string, unknown>)) {
        // 2.1: values are strings (the blind defect takes a number as its text).
        if (typeof value === 'number' && defects.has('blind-template-variable-non-string-accepted')) continue;
        // 7: a wrong value type is the caller's fault (the blind8 defect hands an object value to the renderer, which throws).
        if (isObject(value) && defects.has('blind8-object-variable-value-500')) throw new TypeError('Cannot convert object to primitive value');
        // 2.1: no minimum length (the blind defect refuses an empty value).
        const empty = value === '' && defects.has('blind-template-variable-empty-refused');
        if (typeof value !== 'string' || chars(value) > max || empty) bad(`${at}/template_variables/${token(key)}`);
      }
    }
  });
  return errors;
}

/** 4.1 rule 7: placeholders are written `{{name}}` in the text. */
export function placeholdersOf(text: string): string[] {
  const names = new Set<string>();
  for (const m of text.matchAll(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g)) names.add(m[1]!);
  return [...names];
}

/**
 * 4.1 rule 7 and 2.1 TemplateVariables: every key must be a placeholder, and (reference choice)
 * every placeholder of a template must be given, so each recipient's text can be rendered.
 */
export function checkVariables(body: BulkBody, placeholders: readonly string[], requireAll: boolean, defects: ActiveDefects): FieldError[] {
  const errors: FieldError[] = [];
  const known = new Set(placeholders);
  // The defect ignores variables a template does not have (message bodies keep the rule).
  const ignoreUnknown = requireAll && defects.has('unknown-template-variable-accepted');
  body.recipients.forEach((r, i) => {
    const vars = r.template_variables ?? {};
    for (const key of Object.keys(vars)) {
      if (!known.has(key) && !ignoreUnknown) errors.push({ pointer: `/recipients/${i}/template_variables/${token(key)}`, code: 'field_invalid' });
    }
    if (requireAll && placeholders.some((p) => !(p in vars))) errors.push({ pointer: `/recipients/${i}/template_variables`, code: 'field_invalid' });
  });
  return errors;
}
