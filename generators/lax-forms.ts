// Values a regular-expression engine commonly lets through where a schema's pattern refuses them
// (blind defects blind5-recipient-fullwidth-digits-accepted, blind5-recipient-trailing-newline-
// accepted): made from a valid value, one form per way an engine, a framework or a normaliser is
// lax. Every form is refused by the schema's pattern read as JSON Schema reads it (ECMA-262, no
// multiline flag, ASCII \d): a server that accepts one matched its pattern some other way.
import fc from 'fast-check';

/** The ways a match is commonly lax, one form each (every one always sent where a value is). */
export const LAX_FORMS = ['unicode digits', 'trailing line feed', 'a line of its own', 'surrounding white space', 'a zero-width character'] as const;
export type LaxForm = (typeof LAX_FORMS)[number];

export interface LaxValue {
  form: LaxForm;
  value: string;
  /** What was done to the valid value, for a failure message. */
  how: string;
}

/** Full-width digits (U+FF10-U+FF19): Unicode decimal digits a Unicode \d takes and NFKC folds to ASCII. */
const fullWidth = (s: string) => s.replace(/[0-9]/g, (d) => String.fromCharCode(0xff10 + Number(d)));

/** Characters that show as nothing: zero-width space, non-joiner, joiner, word joiner, byte-order mark. */
const ZERO_WIDTH = ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff'] as const;

/**
 * Every lax form of `valid`, the variant of each drawn from the seed: Unicode digits of another
 * script for `\d` (full-width, which NFKC also folds), a line feed after the value (`$` of
 * Python, PHP, Java, Perl matches before it), the value on a line of its own (`^`/`$` of Ruby or
 * a multiline flag match at line breaks), white space around it (a trimming framework), and an
 * invisible character inside it. A form that leaves the value unchanged (no digit to widen) is
 * left out.
 */
export function laxFormsArb(valid: string): fc.Arbitrary<LaxValue[]> {
  const spaces = [
    [` ${valid}`, 'a leading space'],
    [`${valid} `, 'a trailing space'],
    [`\t${valid}`, 'a leading tab'],
    [` ${valid} `, 'a space either side'],
  ] as const;
  return fc
    .tuple(fc.boolean(), fc.constantFrom(...spaces), fc.constantFrom(...ZERO_WIDTH), fc.integer({ min: 1, max: Math.max(1, valid.length - 1) }))
    .map(([lineFirst, [spaced, spacedHow], zw, at]) => {
      const forms: LaxValue[] = [
        { form: 'unicode digits', value: fullWidth(valid), how: 'its digits full-width' },
        { form: 'trailing line feed', value: `${valid}\n`, how: 'a line feed after it' },
        lineFirst
          ? { form: 'a line of its own', value: `x\n${valid}`, how: 'on the line after "x"' }
          : { form: 'a line of its own', value: `${valid}\nx`, how: 'on the line before "x"' },
        { form: 'surrounding white space', value: spaced, how: spacedHow },
        { form: 'a zero-width character', value: `${valid.slice(0, at)}${zw}${valid.slice(at)}`, how: `U+${zw.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} after character ${at}` },
      ];
      return forms.filter((f) => f.value !== valid);
    });
}

/** A form as it is written for a failure message (line breaks and invisible characters escaped). */
export const showLax = (v: LaxValue): string => `${JSON.stringify(v.value)} (${v.how})`;
