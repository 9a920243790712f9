// Valid bodies for createSmsBulkMessage (4.1), derived from CreateSmsBulkMessageRequest and
// narrowed by what a run knows: its authorized sender, its recipient allowlist, its template.
import fc from 'fast-check';
import { validate } from '../spec/validators.ts';
import {
  GeneratorError,
  componentSchema,
  e164Arb,
  e164Lengths,
  plainText,
  recipientsFrom,
  rendererMarkupArb,
  withRendererMarkup,
  templateValueMaxLength,
  templateVariablesFor,
} from './domain.ts';
import { semanticLimitKeywords, type ConvertOptions, type SchemaObject } from './from-schema.ts';
import { schemaArb } from './schemas.ts';
import { prng } from './seed.ts';

export interface BulkRecipientBody {
  to: string;
  template_variables?: Record<string, string>;
}

export interface BulkRequestBody {
  from: string;
  classification: string;
  message?: string;
  template_id?: string;
  recipients: BulkRecipientBody[];
}

export interface BulkRequestOptions {
  /** An authorized sender identity of the business (CONFORMANCE_SENDER_ID). */
  senderId: string;
  /** The only numbers the body may carry (CONFORMANCE_RECIPIENTS); generated E.164 numbers when absent. */
  pool?: readonly string[];
  /** An active template of the business; enables template-based bodies. */
  templateId?: string;
  /** Its placeholder names: every recipient of a template body carries exactly these variables. */
  placeholders?: readonly string[];
  /** Recipient count bounds, inside the schema's (default 1 to 5, kept small for speed). */
  count?: { min?: number; max?: number };
  /** `message`, `template` or `either` (default: `either` with a template, else `message`). */
  content?: 'message' | 'template' | 'either';
  /**
   * Message bodies whose text holds markup a renderer would touch (double-brace placeholders,
   * escapes, white space at the ends: rendererMarkupArb), sent with no variables (4.1 rule 7 binds
   * variables to a pinned template); plain text otherwise.
   */
  markup?: boolean;
}

const DEFAULT_COUNT = { min: 1, max: 5 };

/** Recipient count bounds of the schema, the semantic (quota) maximum included. */
export function recipientCountBounds(): { min: number; max: number } {
  const recipients = (componentSchema('CreateSmsBulkMessageRequest').properties as Record<string, SchemaObject>).recipients!;
  const semantic = semanticLimitKeywords(recipients);
  const min = typeof recipients.minItems === 'number' ? recipients.minItems : 0;
  const max =
    typeof recipients.maxItems === 'number'
      ? recipients.maxItems
      : typeof semantic.maxItems === 'number'
        ? semantic.maxItems
        : Number.POSITIVE_INFINITY;
  return { min, max };
}

/** The longest message the schema allows. */
function messageMaxLength(): number {
  const message = (componentSchema('CreateSmsBulkMessageRequest').properties as Record<string, SchemaObject>).message!;
  if (typeof message.maxLength !== 'number') throw new GeneratorError('GEN_IMPOSSIBLE', 'message is unbounded');
  return message.maxLength;
}

function checkInputs(options: BulkRequestOptions): void {
  if (validate('SenderId', options.senderId).length > 0) {
    throw new GeneratorError('GEN_MISSING_INPUT', `sender id ${JSON.stringify(options.senderId)} is not a SenderId`);
  }
  if (options.templateId !== undefined && validate('UuidV7', options.templateId).length > 0) {
    throw new GeneratorError('GEN_MISSING_INPUT', `template id ${JSON.stringify(options.templateId)} is not a UuidV7`);
  }
  if (options.content === 'template' && options.templateId === undefined) {
    throw new GeneratorError('GEN_MISSING_INPUT', 'template bodies need a template id');
  }
}

function contentOf(options: BulkRequestOptions): 'message' | 'template' | 'either' {
  return options.content ?? (options.templateId !== undefined ? 'either' : 'message');
}

function bodyArb(options: BulkRequestOptions, branch: 'message' | 'template', count: { min: number; max: number }) {
  const placeholders = options.placeholders ?? [];
  const convert: ConvertOptions = {
    overrides: {
      '/from': fc.constant(options.senderId),
      '/recipients/*/to': options.pool ? recipientsFrom(options.pool) : e164Arb(),
    },
    constrain: { '/recipients': { minItems: count.min, maxItems: count.max } },
    // Text a renderer takes literally: no stray placeholder syntax, not blank (or, asked for, with
    // markup laid in that a renderer would touch).
    narrow: {
      '/message': (arb) => {
        const plain = arb.filter((s) => plainText(s as string)) as fc.Arbitrary<string>;
        return options.markup ? fc.tuple(plain, rendererMarkupArb()).map(([s, m]) => withRendererMarkup(s, m, messageMaxLength())) : plain;
      },
    },
    branch: { '': branch === 'message' ? 'message' : 'template_id' },
    omit: [],
    require: [],
  };
  if (branch === 'template') {
    convert.overrides!['/template_id'] = fc.constant(options.templateId!);
    if (placeholders.length > 0) {
      convert.overrides!['/recipients/*/template_variables'] = templateVariablesFor(placeholders);
      convert.require!.push('/recipients/*/template_variables');
    } else {
      convert.omit!.push('/recipients/*/template_variables');
    }
  } else {
    // Variables without a template have nothing to bind to (4.1 rule 7).
    convert.omit!.push('/recipients/*/template_variables');
  }
  return schemaArb<BulkRequestBody>('CreateSmsBulkMessageRequest', convert);
}

/** Valid createSmsBulkMessage bodies for the run's sender, recipients and template. */
export function bulkRequestArb(options: BulkRequestOptions): fc.Arbitrary<BulkRequestBody> {
  checkInputs(options);
  const bounds = recipientCountBounds();
  const count = {
    min: options.count?.min ?? Math.max(DEFAULT_COUNT.min, bounds.min),
    max: options.count?.max ?? Math.min(DEFAULT_COUNT.max, bounds.max),
  };
  if (count.min < bounds.min || count.max > bounds.max || count.min > count.max) {
    throw new GeneratorError('GEN_IMPOSSIBLE', `recipient count ${count.min}..${count.max} is outside ${bounds.min}..${bounds.max}`);
  }
  const content = contentOf(options);
  if (content === 'message') return bodyArb(options, 'message', count);
  if (content === 'template') return bodyArb(options, 'template', count);
  return fc.oneof(bodyArb(options, 'message', count), bodyArb(options, 'template', count));
}

// ---- fast path for large recipient lists ----------------------------------------------------

const WORD = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * Bodies with exactly `n` recipients (any n >= 0: 1,000 for the limit, 1,001 or 0 for the
 * cases beyond it). The head (sender, content) comes from bulkRequestArb; the recipients from
 * one seeded PRNG, with the same rules (pool, every E.164 length, placeholder variables).
 */
export function bulkBodyWithRecipientCount(n: number, options: BulkRequestOptions): fc.Arbitrary<BulkRequestBody> {
  const head = bulkRequestArb({ ...options, count: { min: 1, max: 1 } });
  const lengths = e164Lengths();
  const valueMax = Math.min(16, templateValueMaxLength());
  const pool = options.pool;
  return fc.tuple(head, fc.integer({ min: 0, max: 0x7fffffff })).map(([body, seed]) => {
    const random = prng(seed);
    const int = (k: number) => Math.floor(random() * k);
    const keys = body.recipients[0]?.template_variables ? Object.keys(body.recipients[0].template_variables) : undefined;
    const recipients: BulkRecipientBody[] = new Array(n);
    for (let i = 0; i < n; i++) {
      let to: string;
      if (pool) to = pool[int(pool.length)]!;
      else {
        const length = lengths[int(lengths.length)]!;
        let digits = String(1 + int(9));
        for (let d = 2; d < length; d++) digits += String(int(10));
        to = '+' + digits;
      }
      if (!keys) {
        recipients[i] = { to };
        continue;
      }
      const vars: Record<string, string> = {};
      for (const k of keys) {
        let v = '';
        const len = 1 + int(valueMax);
        for (let c = 0; c < len; c++) v += WORD[int(WORD.length)];
        vars[k] = v;
      }
      recipients[i] = { to, template_variables: vars };
    }
    return { ...body, recipients };
  });
}
