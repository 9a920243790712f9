// Repeats of a submission for the idempotency rules: the same JSON value written differently
// (key order, whitespace), and a payload changed in exactly one field that stays valid.
import * as fc from 'fast-check';
import { e164Arb } from '../../generators/domain.ts';
import type { BulkRequestBody } from '../../generators/bulk-request.ts';
import type { CheckContext } from './check.ts';

type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };

/** Serialises with object keys in the order `order` gives for each object (a permutation seed per object). */
function writeWithOrder(value: JsonValue, pickOrder: (keys: string[]) => string[], indent: string, depth = 0): string {
  const nl = indent ? `\n${indent.repeat(depth + 1)}` : '';
  const end = indent ? `\n${indent.repeat(depth)}` : '';
  const sep = indent ? ': ' : ':';
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[${value.map((v) => nl + writeWithOrder(v, pickOrder, indent, depth + 1)).join(',')}${end}]`;
  }
  if (value !== null && typeof value === 'object') {
    const keys = pickOrder(Object.keys(value));
    if (keys.length === 0) return '{}';
    return `{${keys.map((k) => `${nl}${JSON.stringify(k)}${sep}${writeWithOrder(value[k]!, pickOrder, indent, depth + 1)}`).join(',')}${end}}`;
  }
  return JSON.stringify(value);
}

/**
 * The body as another text with the same JSON value: keys reordered at every level and the
 * whitespace changed. Never the byte-identical text (that case is the plain replay).
 */
export function equivalentSerialisations(body: BulkRequestBody): fc.Arbitrary<string> {
  const original = JSON.stringify(body);
  return fc
    .record({ seed: fc.integer({ min: 1, max: 0x7fffffff }), indent: fc.constantFrom('', ' ', '  ', '\t') })
    .map(({ seed, indent }) => {
      // mulberry32: one generated seed drives every permutation of the text.
      let state = seed >>> 0;
      const next = () => {
        state = (state + 0x6d2b79f5) >>> 0;
        let x = state;
        x = Math.imul(x ^ (x >>> 15), x | 1);
        x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
        return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
      };
      const pickOrder = (keys: string[]) => {
        const out = [...keys];
        for (let i = out.length - 1; i > 0; i--) {
          const j = Math.floor(next() * (i + 1));
          [out[i], out[j]] = [out[j]!, out[i]!];
        }
        return out;
      };
      // Keys in reverse order at least once, so a variant always differs in order when it can.
      const text = writeWithOrder(body as unknown as JsonValue, pickOrder, indent);
      return text === original ? writeWithOrder(body as unknown as JsonValue, (k) => [...k].reverse(), indent || ' ') : text;
    });
}

export interface ChangedPayload {
  body: BulkRequestBody;
  /** Which field differs, for the failure message. */
  change: string;
}

/** The body with exactly one field changed to another valid value (so only idempotency can refuse it). */
export function changedPayloads(t: CheckContext, body: BulkRequestBody): fc.Arbitrary<ChangedPayload> {
  const pool = t.config.target.embedded ? undefined : t.config.fixtures.recipients;
  const numbers = pool && pool.length > 0 ? fc.constantFrom(...pool) : e164Arb();
  const options: Array<fc.Arbitrary<ChangedPayload>> = [
    fc.constant({
      body: { ...body, classification: body.classification === 'transactional' ? 'promotional' : 'transactional' },
      change: 'classification changed',
    }),
  ];
  if (typeof body.message === 'string') {
    options.push(
      fc.constantFrom('.', '!', ' (2)').map((suffix) => ({
        body: { ...body, message: body.message!.length + suffix.length <= 4096 ? body.message + suffix : body.message!.slice(0, -1) },
        change: 'message changed',
      })),
    );
  }
  if (body.recipients.length < 1000) {
    options.push(
      numbers.map((to) => {
        const extra = body.recipients[0]?.template_variables ? { to, template_variables: { ...body.recipients[0].template_variables } } : { to };
        return { body: { ...body, recipients: [...body.recipients, extra] }, change: 'one more recipient' };
      }),
    );
  }
  const first = body.recipients[0];
  // Another number exists unless the allowlist has a single entry.
  if (first && (!pool || new Set(pool).size > 1)) {
    options.push(
      numbers
        .filter((to) => to !== first.to)
        .map((to) => ({ body: { ...body, recipients: [{ ...first, to }, ...body.recipients.slice(1)] }, change: 'first recipient number changed' })),
    );
  }
  return fc.oneof(...options);
}
