// Equivalence for idempotency (4.1 rules 3-4): from one body, raw JSON texts equal to it as JSON
// values (key order, whitespace, string escapes, number spelling) and valid bodies that differ
// from it in exactly one field.
import fc from 'fast-check';
import { recipientCountBounds, type BulkRequestBody, type BulkRequestOptions } from './bulk-request.ts';
import { componentSchema, e164Arb, plainText, recipientsFrom, templateValueArb } from './domain.ts';
import { arbitraryFromSchema } from './from-schema.ts';
import { jsonSchemaFor, validateRequestBody } from '../spec/validators.ts';
import { prng } from './seed.ts';

/**
 * One canonical text per JSON value: object keys sorted by code unit, no whitespace, numbers
 * and strings as JSON.stringify writes them. Two texts are equal JSON values exactly when
 * their parses canonicalise to the same string.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

/** How one equal variant is written; each choice keeps the JSON value. */
export interface Spelling {
  /** Seed of the key permutation of every object (0 keeps the original order). */
  orderSeed: number;
  /** Whitespace put around structural characters. */
  space: '' | ' ' | '\n' | '\t' | '\r\n  ';
  /** Write some characters of strings as \uXXXX escapes (and `/` as `\/`). */
  escapes: boolean;
  /** Spell integers as 5.0, 5e0, 50E-1 ... and other numbers with an exponent. */
  numbers: boolean;
}

function spellNumber(n: number, pick: () => number): string {
  const plain = JSON.stringify(n);
  if (!Number.isFinite(n) || Object.is(n, -0)) return plain;
  if (Number.isInteger(n) && Math.abs(n) < 1e14) {
    const forms = [plain, `${plain}.0`, `${plain}e0`, `${plain}E+0`, `${n * 10}e-1`, `${plain}.000`];
    return forms[Math.floor(pick() * forms.length)]!;
  }
  return pick() < 0.5 ? plain : `${plain}e0`.replace(/e([+-]?\d+)e0$/, 'e$1');
}

function spellString(s: string, escapes: boolean, pick: () => number): string {
  if (!escapes) return JSON.stringify(s);
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\' || code < 0x20) {
      out += JSON.stringify(ch).slice(1, -1);
    } else if (code >= 0xd800 && code <= 0xdfff) {
      // A lone surrogate has no UTF-8 form: written raw it would reach the server as U+FFFD.
      out += '\\u' + code.toString(16);
    } else if (ch === '/' && pick() < 0.5) {
      out += '\\/';
    } else if (code <= 0xffff && pick() < 0.3) {
      out += '\\u' + (pick() < 0.5 ? code.toString(16) : code.toString(16).toUpperCase()).padStart(4, '0');
    } else {
      out += ch;
    }
  }
  return out + '"';
}

/** Writes `value` as JSON text spelled as `spelling` says. */
export function spellJson(value: unknown, spelling: Spelling): string {
  const pick = prng(spelling.orderSeed ^ 0x9e3779b9);
  const order = prng(spelling.orderSeed);
  const ws = spelling.space;
  const write = (v: unknown): string => {
    if (v === null || typeof v === 'boolean') return JSON.stringify(v);
    if (typeof v === 'number') return spelling.numbers ? spellNumber(v, pick) : JSON.stringify(v);
    if (typeof v === 'string') return spellString(v, spelling.escapes, pick);
    if (Array.isArray(v)) return `[${ws}${v.map(write).join(`${ws},${ws}`)}${ws}]`;
    const keys = Object.keys(v as object);
    if (spelling.orderSeed !== 0) {
      for (let i = keys.length - 1; i > 0; i--) {
        const j = Math.floor(order() * (i + 1));
        [keys[i], keys[j]] = [keys[j]!, keys[i]!];
      }
    }
    const members = keys.map((k) => `${spellString(k, spelling.escapes, pick)}${ws}:${ws}${write((v as Record<string, unknown>)[k])}`);
    return `{${ws}${members.join(`${ws},${ws}`)}${ws}}`;
  };
  return ws + write(value) + ws;
}

/** Ways of writing a JSON value (drawn before the value is known, as a sequence step draws it). */
export function spellingArb(): fc.Arbitrary<Spelling> {
  return fc.record({
    orderSeed: fc.integer({ min: 0, max: 0x7fffffff }),
    space: fc.constantFrom<Spelling['space']>('', ' ', '\n', '\t', '\r\n  '),
    escapes: fc.boolean(),
    numbers: fc.boolean(),
  });
}

export interface EqualVariantOptions {
  /** Never the text JSON.stringify writes (that repeat is the byte-identical replay, not a variant). */
  distinct?: boolean;
}

/**
 * Raw JSON texts equal to `body` as a JSON value, to send as the request body byte for byte;
 * shrinking heads back to the plain spelling.
 */
export function equalVariantsArb(body: unknown, options: EqualVariantOptions = {}): fc.Arbitrary<string> {
  const texts = spellingArb().map((spelling) => spellJson(body, spelling));
  if (!options.distinct) return texts;
  const plain = JSON.stringify(body);
  // Any whitespace already differs, so the filter only drops the rare plain spelling.
  return texts.filter((text) => text !== plain);
}

let messages: fc.Arbitrary<string> | undefined;
/** Schema-derived plain messages (built once). */
function messageArb(): fc.Arbitrary<string> {
  messages ??= (arbitraryFromSchema(jsonSchemaFor('CreateSmsBulkMessageRequest'), {}, '/properties/message') as fc.Arbitrary<string>).filter(plainText);
  return messages;
}

/** A valid body that differs from the original in exactly one field. */
export interface DifferentVariant {
  /** JSON Pointer of the changed field. */
  pointer: string;
  body: BulkRequestBody;
}

export interface DifferentVariantOptions extends Pick<BulkRequestOptions, 'pool' | 'senderId'> {
  /** Other authorized senders, to change `from` without a 403. */
  otherSenderIds?: string[];
  /**
   * Other active templates of the business whose placeholders are the body template's, to change
   * `template_id` without a 422 or a variables mismatch. Without them `template_id` is never changed.
   */
  otherTemplateIds?: string[];
}

/**
 * Valid bodies that differ from `body` in exactly one field (classification, message, one
 * recipient's number, one template variable value, the recipient list's length, from or
 * template_id when alternatives are given), so a repeat reaches the idempotency check.
 */
export function differentVariantsArb(body: BulkRequestBody, options: DifferentVariantOptions): fc.Arbitrary<DifferentVariant> {
  return fc.oneof(...differentVariantKinds(body, options));
}

/** The entries reversed, or rotated by one where reversing leaves them as they were; undefined when no order differs. */
function reorderedRecipients<R>(recipients: readonly R[]): R[] | undefined {
  const same = (xs: readonly R[]) => JSON.stringify(xs) === JSON.stringify(recipients);
  const reversed = [...recipients].reverse();
  if (!same(reversed)) return reversed;
  const rotated = [...recipients.slice(1), ...recipients.slice(0, 1)];
  return same(rotated) ? undefined : rotated;
}

/** One arbitrary per field of `body` that a one-field change can reach (differentVariantsArb picks among them). */
export function differentVariantKinds(body: BulkRequestBody, options: DifferentVariantOptions): Array<fc.Arbitrary<DifferentVariant>> {
  const kinds: Array<fc.Arbitrary<DifferentVariant>> = [];
  const classes = (componentSchema('MessageClassification').enum as string[]).filter((c) => c !== body.classification);
  if (classes.length > 0) {
    kinds.push(fc.constantFrom(...classes).map((c) => ({ pointer: '/classification', body: { ...body, classification: c } })));
  }
  if (body.message !== undefined) {
    const messages = messageArb().filter((m) => m !== body.message);
    kinds.push(messages.map((message) => ({ pointer: '/message', body: { ...body, message } })));
  }
  const numbers = options.pool ? options.pool : undefined;
  const toArb = numbers ? (new Set(numbers).size > 1 ? recipientsFrom(numbers) : undefined) : e164Arb();
  if (toArb) {
    kinds.push(
      fc
        .tuple(fc.integer({ min: 0, max: body.recipients.length - 1 }), toArb)
        .filter(([i, to]) => body.recipients[i]!.to !== to)
        .map(([i, to]) => {
          const recipients = body.recipients.map((r, j) => (j === i ? { ...r, to } : r));
          return { pointer: `/recipients/${i}/to`, body: { ...body, recipients } };
        }),
    );
  }
  // One variable value of one recipient (the key set stays the template's placeholders).
  const variables = body.recipients.flatMap((r, i) => Object.keys(r.template_variables ?? {}).map((k) => ({ i, k, old: r.template_variables![k] })));
  if (variables.length > 0) {
    const values = templateValueArb().filter(plainText);
    kinds.push(
      fc.constantFrom(...variables).chain(({ i, k, old }) =>
        values
          .filter((v) => v !== old)
          .map((v) => {
            const recipients = body.recipients.map((x, j) => (j === i ? { ...x, template_variables: { ...x.template_variables, [k]: v } } : x));
            return { pointer: `/recipients/${i}/template_variables/${k}`, body: { ...body, recipients } };
          }),
      ),
    );
  }
  if (body.recipients.length > 1) {
    kinds.push(fc.constant({ pointer: '/recipients', body: { ...body, recipients: body.recipients.slice(0, -1) } }));
  }
  // The same entries in another order: a JSON array is an ordered sequence (RFC 8259), and a
  // bulk's rows keep the submitted order, so the order is part of the payload (blind defect
  // blind-fingerprint-sorts-recipients compared the recipients as a sorted set).
  const reordered = reorderedRecipients(body.recipients);
  if (reordered) kinds.push(fc.constant({ pointer: '/recipients (order)', body: { ...body, recipients: reordered } }));
  const others = (options.otherSenderIds ?? []).filter((s) => s !== body.from);
  if (others.length > 0) kinds.push(fc.constantFrom(...others).map((from) => ({ pointer: '/from', body: { ...body, from } })));
  const templates = (options.otherTemplateIds ?? []).filter((t) => t !== body.template_id);
  if (body.template_id !== undefined && templates.length > 0) {
    kinds.push(fc.constantFrom(...templates).map((template_id) => ({ pointer: '/template_id', body: { ...body, template_id } })));
  }
  // An entry repeated: every entry counts (4.1 rule 1), so a duplicate is part of the payload
  // (blind defect blind3-fingerprint-dedupes-recipients fingerprinted the distinct numbers).
  if (body.recipients.length < recipientCountBounds().max) {
    kinds.push(
      fc.integer({ min: 0, max: body.recipients.length - 1 }).map((i) => ({ pointer: '/recipients', body: { ...body, recipients: [...body.recipients, body.recipients[i]!] } })),
    );
  }
  return kinds;
}

// ---- near-equal changes ---------------------------------------------------------------------

/**
 * Changes of a string that a common normaliser erases: each gives a different JSON value (so a
 * different payload under any reading of equivalence, 4.1 rule 4) that is equal to the original once
 * white space is trimmed or collapsed, letter case folded, Unicode composed (NFC, NFKC) or widths
 * folded (NFKC). One of each per free-text member of the request tells a fingerprint that
 * normalises that member (blind defect blind6-fingerprint-normalizes-message-whitespace).
 */
export const NEAR_EQUAL_CHANGES = {
  // After the trailing space of nearEqualReady, two: trimming and collapsing runs both erase it.
  'a trailing space more': (s: string) => `${s} `,
  'ASCII letter case swapped': (s: string) => s.replace(/[A-Za-z]/g, (c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())),
  'decomposed (NFD)': (s: string) => s.normalize('NFD'),
  'full-width forms': (s: string) => s.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)),
} as const;
export type NearEqualChange = keyof typeof NEAR_EQUAL_CHANGES;

/**
 * What nearEqualReady appends to a free-text member: a cased letter, a precomposed character (so
 * NFD changes it) and a trailing space (so a run of two collapses to it).
 */
const NEAR_EQUAL_SUFFIX = ' Caf\u00e9 ';

const REQUEST_SCHEMA = 'CreateSmsBulkMessageRequest';

interface TextMember {
  pointer: string;
  /** The schema location: the pointer with `*` for an array index or a name of additionalProperties. */
  location: string;
  value: string;
  /** The schema's maximum length of the member. */
  maxLength?: number;
}

/**
 * The string members of `body` the request schema leaves free (no enum, no format: a value of a
 * format, a UUID, is compared as what it names by many stores), the first of each schema location
 * (one recipient, one template variable): derived from the schema, not listed by hand.
 */
function textMembers(body: BulkRequestBody): TextMember[] {
  const root = jsonSchemaFor(REQUEST_SCHEMA) as Record<string, unknown>;
  const defs = (root.$defs ?? {}) as Record<string, Record<string, unknown>>;
  const resolve = (s: Record<string, unknown>): Record<string, unknown> =>
    typeof s.$ref === 'string' ? resolve(defs[decodeURIComponent(s.$ref.replace('#/$defs/', '')).replace(/~1/g, '/').replace(/~0/g, '~')] ?? {}) : s;
  const out: TextMember[] = [];
  const walk = (node: Record<string, unknown>, value: unknown, pointer: string, location: string): void => {
    const schema = resolve(node);
    if (typeof value === 'string') {
      if (schema.type === 'string' && schema.enum === undefined && schema.format === undefined) {
        out.push({ pointer, location, value, ...(typeof schema.maxLength === 'number' ? { maxLength: schema.maxLength } : {}) });
      }
      return;
    }
    if (Array.isArray(value)) {
      if (value.length > 0 && schema.items && typeof schema.items === 'object') walk(schema.items as Record<string, unknown>, value[0], `${pointer}/0`, `${location}/*`);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
    const additional = typeof schema.additionalProperties === 'object' ? (schema.additionalProperties as Record<string, unknown>) : undefined;
    let additionalSeen = false;
    for (const [key, member] of Object.entries(value)) {
      const token = key.replace(/~/g, '~0').replace(/\//g, '~1');
      if (properties[key]) walk(properties[key], member, `${pointer}/${token}`, `${location}/${token}`);
      else if (additional && !additionalSeen) {
        additionalSeen = true;
        walk(additional, member, `${pointer}/${token}`, `${location}/*`);
      }
    }
  };
  walk(root, body, '', '');
  return out;
}

function withValue(body: BulkRequestBody, pointer: string, value: string): BulkRequestBody {
  const copy = structuredClone(body) as unknown as Record<string, unknown>;
  const segments = pointer.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: Record<string, unknown> = copy;
  for (const s of segments.slice(0, -1)) node = node[s] as Record<string, unknown>;
  node[segments.at(-1)!] = value;
  return copy as unknown as BulkRequestBody;
}

const validRequest = (body: BulkRequestBody) => validateRequestBody('createSmsBulkMessage', body).length === 0;

/**
 * `body` with the suffix every near-equal change needs appended to each free-text member the run
 * chose (not a value it was given: the sender, a recipient of the pool), within the member's maximum
 * length; a member the schema would then refuse is left as it was.
 */
export function nearEqualReady(body: BulkRequestBody, given: readonly string[] = []): BulkRequestBody {
  let out = body;
  for (const { pointer, value, maxLength } of textMembers(body)) {
    if (given.includes(value) || value.endsWith(NEAR_EQUAL_SUFFIX)) continue;
    // Code points, as JSON Schema counts a length (a cut never splits a surrogate pair).
    const chars = [...value];
    const room = maxLength === undefined ? chars.length : Math.max(0, maxLength - [...NEAR_EQUAL_SUFFIX].length);
    const ready = withValue(out, pointer, `${chars.slice(0, room).join('')}${NEAR_EQUAL_SUFFIX}`);
    if (validRequest(ready)) out = ready;
  }
  return out;
}

/** A one-field change a normaliser erases. */
export interface NearEqualVariant extends DifferentVariant {
  /** The member's schema location (see textMembers). */
  location: string;
  change: NearEqualChange;
}

/**
 * Every near-equal change of every free-text member of `body` that is still a valid body and a
 * different value (no letter to swap, nothing to decompose: left out); members at a schema location
 * `skip` names (varied already in another body) are left out.
 */
export function nearEqualVariants(body: BulkRequestBody, skip: ReadonlySet<string> = new Set()): NearEqualVariant[] {
  return textMembers(body)
    .filter((m) => !skip.has(m.location))
    .flatMap(({ pointer, location, value }) =>
      (Object.keys(NEAR_EQUAL_CHANGES) as NearEqualChange[]).flatMap((change) => {
        const changed = NEAR_EQUAL_CHANGES[change](value);
        if (changed === value) return [];
        const variant = withValue(body, pointer, changed);
        return validRequest(variant) ? [{ pointer, location, body: variant, change }] : [];
      }),
    );
}

