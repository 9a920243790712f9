// Whether a text is a UUIDv7 or an E.164 number, by the document's schemas (spec/validators.ts),
// remembered: traffic repeats the same few path ids and numbers on thousands of exchanges (and a
// filtered page on every row), and asking ajv each time was a tenth of the request rules' time.
import { isValid } from '../spec/validators.ts';

type TextSchema = 'UuidV7' | 'E164PhoneNumber';

const LIMIT = 4096;
const known: Record<TextSchema, Map<string, boolean>> = { UuidV7: new Map(), E164PhoneNumber: new Map() };

/** isValid(schema, value), remembered for strings (bounded: forgotten all at once when full). */
export function isValidText(schema: TextSchema, value: unknown): boolean {
  if (typeof value !== 'string') return isValid(schema, value);
  const memo = known[schema];
  let valid = memo.get(value);
  if (valid === undefined) {
    valid = isValid(schema, value);
    if (memo.size >= LIMIT) memo.clear();
    memo.set(value, valid);
  }
  return valid;
}
