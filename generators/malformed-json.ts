// Malformed JSON in every form a lenient parser (JSON5, a "relaxed" mode, a streaming reader that
// stops after the first value) lets through, each derived from the text of a valid body so that a
// parser that accepts the form reads a valid submission out of it: a 202 shows the leniency, where
// RFC 8259 makes every one of them no JSON text at all (section 7 of the document: a malformed
// request is 400 validation_failed). The truncated body is the `body: malformed JSON` kind of
// invalid.ts (cut where no number can be read from it).
import type { BulkRequestBody } from './bulk-request.ts';

/** Each form, one kind of each-kind-of-violation each (listed, so a budget can count them). */
export const MALFORMED_JSON_FORMS = [
  'a trailing comma in an object',
  'a trailing comma in an array',
  'a single-quoted member name',
  'a comment',
  'an unquoted member name',
  'NaN',
  'Infinity',
  'a number with a leading zero',
  'text after the value',
  'an invalid escape',
] as const;
export type MalformedJsonForm = (typeof MALFORMED_JSON_FORMS)[number];

/**
 * The text of `body` with the one fault of `form`. The recipients member is written last so each
 * edit has a fixed place; NaN, Infinity and the leading zero stand in an extra member (the body has
 * no number of its own: a strict schema refuses the member too, and the answer is 400 either way).
 */
export function malformedJsonText(body: BulkRequestBody, form: MalformedJsonForm): string {
  const { recipients, ...rest } = body;
  const head = JSON.stringify(rest).slice(0, -1);
  const items = recipients.map((r) => JSON.stringify(r));
  const list = items.join(',');
  const whole = (member: string, array = `[${list}]`) => `${head}${head.length > 1 ? ',' : ''}${member}:${array}}`;
  switch (form) {
    case 'a trailing comma in an object':
      return `${whole('"recipients"').slice(0, -1)},}`;
    case 'a trailing comma in an array':
      return whole('"recipients"', `[${list},]`);
    case 'a single-quoted member name':
      return whole("'recipients'");
    case 'a comment':
      return whole('/* recipients */ "recipients"');
    case 'an unquoted member name':
      return whole('recipients');
    case 'NaN':
      return `${whole('"recipients"').slice(0, -1)},"note":NaN}`;
    case 'Infinity':
      return `${whole('"recipients"').slice(0, -1)},"note":Infinity}`;
    case 'a number with a leading zero':
      return `${whole('"recipients"').slice(0, -1)},"note":01}`;
    case 'text after the value':
      return `${whole('"recipients"')} {}`;
    case 'an invalid escape': {
      // An identity escape (`\+`, `\A`): JSON allows only \" \\ \/ \b \f \n \r \t \uXXXX; a lenient
      // parser reads `\+` as `+`, the same number.
      const escaped = items[0]!.replace(/"to":"(.)/, (_, c: string) => `"to":"\\${/[bfnrtu"\\/]/.test(c) ? 'q' : c}`);
      return whole('"recipients"', `[${[escaped, ...items.slice(1)].join(',')}]`);
    }
  }
}
