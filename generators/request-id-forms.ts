// The request-id forms real clients send (4.0: a valid X-Request-Id comes back unchanged): UUIDs
// in both cases, a ULID, a bare W3C trace id, a traceparent-shaped id, dotted and underscored
// service ids. A server that recognizes one of these shapes and rewrites it (blind defect
// blind7-request-id-uuid-dehyphenated echoed a UUID as 32 hex digits) breaks the client that
// matches its responses by the id it sent. Only the forms the RequestId schema allows are kept.
import * as fc from 'fast-check';
import { validate } from '../spec/validators.ts';

export interface RequestIdForm {
  /** What kind of id it is (a line of the report). */
  what: string;
  value: string;
}

const hex = (length: number) => fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: length, maxLength: length });
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** A ULID: 26 characters of Crockford base32, the first at most 7 (48-bit time, 80-bit randomness). */
const ulid = fc
  .tuple(fc.constantFrom(...'01234567'), fc.string({ unit: fc.constantFrom(...CROCKFORD), minLength: 25, maxLength: 25 }))
  .map(([head, tail]) => head + tail);
const word = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'), minLength: 2, maxLength: 10 });

/** One of each form, from the seed; those outside the RequestId schema (pattern, length) left out. */
export function requestIdFormsArb(): fc.Arbitrary<RequestIdForm[]> {
  return fc
    .record({ uuid4: fc.uuid({ version: 4 }), uuid7: fc.uuid({ version: 7 }), ulid, trace: hex(32), span: hex(16), service: fc.array(word, { minLength: 2, maxLength: 3 }), tail: hex(12) })
    .map(({ uuid4, uuid7, ulid, trace, span, service, tail }) => [
      { what: 'a UUID v4, lower case', value: uuid4 },
      { what: 'a UUID v4, upper case', value: uuid4.toUpperCase() },
      { what: 'a UUID v7', value: uuid7 },
      { what: 'a ULID', value: ulid },
      { what: 'a W3C trace id (32 hex digits)', value: trace },
      { what: 'a traceparent-shaped id', value: `00-${trace}-${span}-01` },
      { what: 'a dotted service id', value: `${service.join('.')}.${tail}` },
      { what: 'an underscored id', value: `req_${service.join('_')}_${tail.toUpperCase()}` },
    ])
    .map((forms) => forms.filter((f) => validate('RequestId', f.value).length === 0));
}

/** How many forms `requestIdFormsArb` gives at most. */
export const REQUEST_ID_FORMS = 8;
