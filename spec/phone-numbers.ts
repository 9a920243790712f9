// Telephone numbers as the safety rail and the generators must agree on them: which strings a
// lenient server could still deliver to, and which digit runs in a text could be read as one.
// The E.164 bounds (8 to 15 digits after the plus, no leading zero) come from the schema's pattern.
import { jsonSchemaFor } from './validators.ts';

const pattern = (jsonSchemaFor('E164PhoneNumber') as { pattern?: unknown }).pattern;
if (typeof pattern !== 'string') throw new Error('spec: E164PhoneNumber has no pattern');
/** The schema's E.164 pattern. */
export const E164 = new RegExp(pattern, 'u');

/** Digits after the plus: `{a,b}` of the pattern's repetition, plus the leading non-zero digit. */
const bounds = /\{(\d+),(\d+)\}/.exec(pattern);
export const E164_MIN_DIGITS = bounds ? Number(bounds[1]) + 1 : 8;
export const E164_MAX_DIGITS = bounds ? Number(bounds[2]) + 1 : 15;

/** The member whose value is an addressed number, wherever it stands in a body. */
export const TO_MEMBER = 'to';
/** The member whose entries are addressed numbers (or objects holding a `to`). */
export const RECIPIENTS_MEMBER = 'recipients';
/** Both: the rail reads them anywhere, so a generated unknown member never takes one of them. */
export const ADDRESS_MEMBERS: readonly string[] = [TO_MEMBER, RECIPIENTS_MEMBER];

/** The digits of a text, full-width ones read as ASCII (NFKC): a server that normalises them could dial them. */
export const digitsOf = (text: string): string => text.normalize('NFKC').replace(/\D/g, '');

/**
 * True when no normalisation (dropping spaces, letters or punctuation, adding a plus) can turn the
 * string into a number anyone could receive: too few or too many digits, or a leading zero where
 * the country code stands.
 */
export function undeliverable(value: string): boolean {
  const digits = digitsOf(value);
  return digits.length < E164_MIN_DIGITS || digits.length > E164_MAX_DIGITS || digits.startsWith('0');
}

/**
 * Whether a run that may only reach `allowlist` may send to `value`: one of those numbers, a
 * spelling of one (its digits without the plus, or with spaces), or a string no server could
 * deliver to.
 */
export function mayAddress(value: string, allowlist: readonly string[]): boolean {
  if (allowlist.includes(value) || undeliverable(value)) return true;
  const digits = digitsOf(value);
  return allowlist.some((allowed) => digitsOf(allowed) === digits);
}

/** Complete UUIDs: digits inside them are never a telephone number. */
const UUID_TEXT = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
/**
 * A run of digits with the separators people write numbers with, standing alone: not glued to a
 * letter, digit or hyphen on either side (so hex ids and their fragments are not read as numbers).
 */
const NUMBER_RUN = /(?<![0-9A-Za-z-])\+?\d[\d ().-]*\d(?![0-9A-Za-z-])/g;

/** Digit runs of a text (not JSON) that a lenient reader could take for a deliverable number. */
export function phoneLikeRuns(text: string): string[] {
  const withoutIds = text.replace(UUID_TEXT, ' ');
  return (withoutIds.match(NUMBER_RUN) ?? []).filter((run) => !undeliverable(run));
}
