// One API request in flight: what the pipeline learned about it and how it answers. Every answer
// goes through here, so the request id and problem rules (4.0, 7) hold for every response.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../clock.ts';
import type { CursorCodec } from '../cursors.ts';
import type { ActiveDefects } from '../defects.ts';
import type { Application, Store } from '../store.ts';
import type { TokenService } from '../tokens.ts';
import { PROBLEM_MEDIA_TYPE, buildProblem, writeJson, type FieldError, type ProblemCode } from '../problems.ts';
import { generateRequestId } from '../ids.ts';

export interface Faults {
  /** 4.5: the authoritative wallet source is switched off. */
  walletUnavailable: boolean;
  /** Requests per application per minute of business time; null means unlimited. */
  rateLimitPerMinute: number | null;
  /** Every authenticated API request answers 503 service_unavailable. */
  serviceUnavailable: boolean;
  /** Every authenticated API request throws, to show the 500 internal_error problem. */
  internalError: boolean;
  /** 2.2: authoritative intake and submission totals are unavailable to bulk reads. */
  countsUnavailable: boolean;
}

export interface Deps {
  store: Store;
  clock: Clock;
  tokens: TokenService;
  cursors: CursorCodec;
  defects: ActiveDefects;
  faults: Faults;
  /** Counters kept across requests (wallet reads, rate windows). */
  counters: { walletReads: number; lastWalletBalance: Map<string, string>; rate: Map<string, { windowStart: number; count: number }>; pace: number[] };
  /**
   * Requests per second the API answers before 429 (`serve --rate-limit`), the pace of a sandbox;
   * null for none. Counted over the last second of wall time, every caller together.
   */
  ratePerSecond: number | null;
}

export class Call {
  app: Application | undefined;
  /** 4: the name of the request id header (a blind5 defect's wallet handler names it otherwise). */
  requestIdHeader = 'X-Request-Id';

  constructor(
    readonly deps: Deps,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly requestId: string,
    readonly path: string,
    readonly query: URLSearchParams,
  ) {}

  get defects(): ActiveDefects {
    return this.deps.defects;
  }

  /** 2.1: response timestamps are UTC with `Z`. */
  time(ms: number): string;
  time(ms: number | null): string | null;
  time(ms: number | null): string | null {
    if (ms === null) return null;
    const iso = new Date(ms).toISOString();
    return this.defects.has('timestamps-plus-offset') ? `${iso.slice(0, -1)}+00:00` : iso;
  }

  private baseHeaders(extra: Record<string, string> = {}, status?: number): Record<string, string> {
    // 4: every response carries X-Request-Id.
    if (status === 401 && this.defects.has('request-id-missing-on-401')) return extra;
    // (The blind6 defect's authorization guard writes its 403s without it.)
    if (status === 403 && this.defects.has('blind6-request-id-missing-on-403')) return extra;
    // (The blind7 defect's idempotency store layer writes its 409s without it.)
    if (status === 409 && this.defects.has('blind7-request-id-missing-on-409')) return extra;
    // 4.0: without a client id one is generated and returned (the defect returns none).
    if (this.req.headers['x-request-id'] === undefined && this.defects.has('request-id-not-generated')) return extra;
    // 4.0: an invalid client id is replaced by a generated one (the defect drops it and sends none).
    const given = this.req.headers['x-request-id'];
    if (typeof given === 'string' && given !== this.requestId && this.defects.has('invalid-request-id-dropped')) return extra;
    // 4.0: the valid client id, unchanged (the blind10 defect's gateway appends a second line of its own to successful answers).
    if ((status === undefined || status < 400) && given === this.requestId && this.defects.has('blind10-request-id-header-doubled')) return { [this.requestIdHeader]: `${this.requestId}, ${generateRequestId()}`, ...extra };
    return { [this.requestIdHeader]: this.requestId, ...extra };
  }

  json(status: number, body: unknown, headers: Record<string, string> = {}, vendorType?: string): void {
    // 1: JSON bodies say application/json (the defect labels them text/plain; a blind defect gives
    // its caller's vendor type).
    const mediaType = this.defects.has('success-media-type-text-plain') ? 'text/plain' : (vendorType ?? 'application/json');
    writeJson(this.res, status, body, mediaType, this.baseHeaders(headers, status));
  }

  /** A body already serialised (idempotent replay keeps the original bytes). */
  raw(status: number, text: string, headers: Record<string, string> = {}): void {
    this.res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...this.baseHeaders(headers) });
    this.res.end(text);
  }

  empty(status: number): void {
    // 4: every response carries X-Request-Id (the blind defect's bodiless path writes no header).
    if (status === 204 && this.defects.has('blind3-request-id-missing-on-204')) {
      this.res.writeHead(status);
      return void this.res.end();
    }
    // 4.0: the client's valid id is echoed on every answer (the defect forgets it on the bodiless 204).
    if (status === 204 && this.defects.has('request-id-regenerated-on-204')) {
      this.res.writeHead(status, { ...this.baseHeaders(), 'X-Request-Id': generateRequestId() });
      return void this.res.end();
    }
    this.res.writeHead(status, this.baseHeaders());
    this.res.end();
  }

  /** 7: an RFC 9457 problem whose request_id equals the X-Request-Id header. */
  problem(
    code: ProblemCode,
    detail: string,
    // `status` is passed only by a defect (7: each code travels with the status of the table).
    options: { errors?: FieldError[]; headers?: Record<string, string>; extra?: Record<string, unknown>; status?: number } = {},
  ): void {
    const d = this.defects;
    const given = code === 'validation_failed' && d.has('validation-errors-missing') ? undefined : options.errors;
    // 7: errors[] names each field by JSON Pointer or parameter name (the defect builds it from the
    // body validator's dotted paths, so query parameters and headers are left out).
    let errors = given && d.has('validation-pointer-dotted') ? given.filter((e) => e.pointer === '' || e.pointer.startsWith('/')).map((e) => ({ ...e, pointer: dotted(e.pointer) })) : given;
    // 7: items have pointer and code only, pointing at the entry at fault (blind defects: a message
    // member beside them; recipient entries numbered from 1).
    if (errors && d.has('blind-error-item-message')) errors = errors.map((e) => ({ ...e, message: 'This value is invalid.' }));
    if (errors && d.has('blind-pointer-one-based')) errors = errors.map((e) => ({ ...e, pointer: e.pointer.replace(/^\/recipients\/(\d+)/, (_, n: string) => `/recipients/${Number(n) + 1}`) }));
    // 7: the errors of this request (the blind7 defect's list is module state, never cleared).
    if (errors && d.has('blind7-validation-errors-accumulate')) {
      const earlier = accumulatedErrors.get(this.deps.counters) ?? [];
      errors = [...earlier, ...errors];
      accumulatedErrors.set(this.deps.counters, errors);
    }
    const body: Record<string, unknown> = { ...buildProblem(code, detail, this.requestId, errors), ...options.extra };
    if (d.has('problem-type-wrong-base-one-code') && code === 'idempotency_conflict') body.type = `https://errors.example.invalid/${code}`;
    // 7: type is {problems_base}/{code} (the blind7 defect gives a bare 404 RFC 9457's default, about:blank).
    if (d.has('blind7-not-found-type-about-blank') && code === 'resource_not_found') body.type = 'about:blank';
    if (d.has('problem-request-id-mismatch')) body.request_id = `${this.requestId}-x`;
    // The defect generates a second id for the body when the client sent no valid one.
    if (d.has('problem-request-id-regenerated') && this.req.headers['x-request-id'] !== this.requestId) body.request_id = generateRequestId();
    // 7: request_id equals the header (the blind defect copies the client's header as sent, valid or not).
    const sent = this.req.headers['x-request-id'];
    if (typeof sent === 'string' && d.has('blind3-problem-request-id-raw')) body.request_id = sent;
    if (d.has('problem-missing-detail')) delete body.detail;
    // 7: codes are the section 7 ones; the defect renames resource_not_found (type kept in step).
    if (d.has('not-found-code-unknown') && code === 'resource_not_found') {
      body.code = 'not_found';
      body.type = String(body.type).replace(/\/resource_not_found$/, '/not_found');
    }
    // 7: one stable title per code.
    if (d.has('problem-title-is-detail')) body.title = detail;
    // 7: instance is recommended.
    if (d.has('problem-instance-missing')) delete body.instance;
    // 7: instance is a URI reference (the blind defect writes a phrase with spaces).
    if (d.has('blind-problem-instance-with-space') && typeof body.instance === 'string') body.instance = `request ${this.requestId}`;
    // 7: one title per code (the blind defect names the first field at fault in it).
    if (d.has('blind-problem-title-names-field') && errors?.[0]) body.title = `Invalid field ${errors[0].pointer}`;
    // (The blind10 defect's writer takes the title from a variable the previous problem set.)
    if (d.has('blind10-problem-title-of-previous-code')) {
      const previous = previousTitle.get(this.deps.counters);
      previousTitle.set(this.deps.counters, String(body.title));
      if (previous !== undefined) body.title = previous;
    }
    if (options.status !== undefined) body.status = options.status;
    if (d.has('problem-status-mismatch') && body.status === 422) body.status = 400;
    // 7: status is an integer and type ends in the code (blind defects: a string; the code hyphenated).
    if (d.has('blind-problem-status-as-string')) body.status = String(body.status);
    if (d.has('blind-problem-type-hyphenated')) body.type = String(body.type).replace(/[^/]+$/, (c) => c.replace(/_/g, '-'));
    // 7: type is {problems_base}/{code} (the blind defect ends it with a slash).
    if (d.has('blind3-problem-type-trailing-slash')) body.type = `${String(body.type)}/`;
    // 7: errors is an array of pointer and code items (the blind6 defect writes a map from pointer to code).
    if (errors && d.has('blind6-validation-errors-as-map')) body.errors = Object.fromEntries(errors.map((e) => [e.pointer, e.code]));
    // 7: code is one of the section 7 codes as written (the blind6 defect writes the enum constant, upper case).
    if (d.has('blind6-problem-code-upper-case')) body.code = String(body.code).toUpperCase();
    // 7: request_id is this response's (the blind6 defect's error writer reads a variable set by the previous problem).
    if (d.has('blind6-problem-request-id-of-previous')) {
      const previous = previousProblemId.get(this.deps.counters);
      previousProblemId.set(this.deps.counters, this.requestId);
      if (previous !== undefined) body.request_id = previous;
    }
    const status = options.status ?? buildProblem(code, '', this.requestId).status;
    // 7: application/problem+json (the blind defect's authentication middleware writes its 401 as application/json).
    // (The blind7 defect's authorization layer writes its 403s as application/json+problem.)
    const mediaType =
      d.has('problem-media-type-json') || (status === 401 && d.has('blind3-401-media-type-json'))
        ? 'application/json'
        : status === 403 && d.has('blind7-problem-media-type-reversed')
          ? 'application/json+problem'
          : PROBLEM_MEDIA_TYPE;
    // 4.0: the client's valid id on every answer (the blind defect's validation middleware, run
    // before the request id is settled, writes its 400s under an id of its own, header and body alike).
    const own = code === 'validation_failed' && d.has('blind4-request-id-regenerated-on-400') ? generateRequestId() : undefined;
    if (own) body.request_id = own;
    // 7: request_id is a string equal to the header (the blind8 defect's writer types a numeric id as a number).
    if (d.has('blind8-generated-request-id-numeric-in-body') && /^\d+$/.test(String(body.request_id))) body.request_id = Number(body.request_id);
    writeJson(this.res, status, body, mediaType, this.baseHeaders(own ? { ...options.headers, 'X-Request-Id': own } : options.headers, status));
  }

  validationFailed(detail: string, errors: FieldError[]): void {
    this.problem('validation_failed', detail, { errors });
  }
}

/** Field errors of every validation failure so far, per reference (the `blind7-validation-errors-accumulate` defect). */
const accumulatedErrors = new WeakMap<object, FieldError[]>();

/** The title of the previous problem answered, per reference (the `blind10-problem-title-of-previous-code` defect). */
const previousTitle = new WeakMap<object, string>();

/** The request id of the previous problem answered, per reference (the `blind6-problem-request-id-of-previous` defect). */
const previousProblemId = new WeakMap<object, string>();

/** `/recipients/0/to` as `recipients.0.to` (the `validation-pointer-dotted` defect); the body root stays ''. */
function dotted(pointer: string): string {
  return pointer.slice(1).split('/').join('.');
}
