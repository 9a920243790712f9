import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bulkRequestArb } from '../../generators/bulk-request.ts';
import { MALFORMED_JSON_FORMS, malformedJsonText } from '../../generators/malformed-json.ts';
import { SEED } from './helpers.ts';

/** What a lenient reader makes of each form: the repair that undoes its one fault. */
const LENIENT: Record<(typeof MALFORMED_JSON_FORMS)[number], (text: string) => string> = {
  'a trailing comma in an object': (s) => s.replace(/,\}$/, '}'),
  'a trailing comma in an array': (s) => s.replace(/,\]\}$/, ']}'),
  'a single-quoted member name': (s) => s.replace("'recipients'", '"recipients"'),
  'a comment': (s) => s.replace('/* recipients */ ', ''),
  'an unquoted member name': (s) => s.replace(/,recipients:\[/, ',"recipients":['),
  NaN: (s) => s.replace(/,"note":NaN\}$/, '}'),
  Infinity: (s) => s.replace(/,"note":Infinity\}$/, '}'),
  'a number with a leading zero': (s) => s.replace(/,"note":01\}$/, '}'),
  'text after the value': (s) => s.replace(/ \{\}$/, ''),
  'an invalid escape': (s) => s.replace('"to":"\\+', '"to":"+'),
};

describe('malformed JSON forms', () => {
  it('each form of a valid body is no JSON text, and undoing its one fault gives the body back', () => {
    fc.assert(
      fc.property(bulkRequestArb({ senderId: 'ACME' }), (body) => {
        for (const form of MALFORMED_JSON_FORMS) {
          const text = malformedJsonText(body, form);
          expect(() => JSON.parse(text), form).toThrow();
          expect(JSON.parse(LENIENT[form](text)), form).toEqual(body);
        }
      }),
      { seed: SEED, numRuns: 40 },
    );
  });
});
