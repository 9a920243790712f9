// The suite-facing HTTP client interface. Implementation: harness/http-client.ts.
import type { Exchange } from '../core/model.ts';

/** The run's applications: `primary` (every permission), `limited`, and `other` (of the other business). */
export type AppName = 'primary' | 'limited' | 'other';

/** Who the request authenticates as. Default `primary`. */
export type Caller =
  | 'primary'
  | 'limited'
  | 'other'
  | 'none'
  | { bearer: string }
  | { authorization: string };

export interface ApiRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
  /** Path under the base URL, starting `/v1/`. */
  path: string;
  /** Query parameters in order; a repeated name is allowed. */
  query?: Array<[string, string]> | Record<string, string>;
  /**
   * Explicit headers win over the client's defaults (Authorization from `as`, a run-scoped
   * `X-Request-Id`, `Accept`, `Content-Type` for `json`). A header given as `undefined` is not sent
   * at all: `{ 'x-request-id': undefined }` sends the request without any X-Request-Id.
   */
  headers?: Record<string, string | undefined>;
  /** Serialised with JSON.stringify and sent as application/json unless headers say otherwise. */
  json?: unknown;
  /** Sent byte for byte (malformed JSON, key order, whitespace variants). */
  rawBody?: string;
  as?: Caller;
  /**
   * Returns a 429 or 503 as the answer instead of waiting it out and sending again: only for the
   * checks about rate limits and unavailability (harness/pacing.ts).
   */
  seePacing?: boolean;
}

export interface ApiResponse {
  status: number;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  text: string;
  /** Parsed body when it is JSON; undefined otherwise. */
  json: unknown;
  exchange: Exchange;
}

export interface TokenRequest {
  /** Whole Authorization header, or none. */
  authorization?: string;
  /** application/x-www-form-urlencoded body. */
  form: Record<string, string>;
}

export interface ApiClient {
  send(request: ApiRequest): Promise<ApiResponse>;
  /** An access token for an application, cached until shortly before expiry. */
  token(app: AppName): Promise<string>;
  /** A raw call to the token endpoint, for the checks of the token endpoint itself. */
  tokenEndpoint(request: TokenRequest): Promise<ApiResponse>;
  /** A fresh idempotency key carrying the run id, so reruns never collide. */
  idempotencyKey(label?: string): string;
  /** Requests sent so far by this client. */
  readonly requestCount: number;
  /**
   * Replaces every secret and token this client knows of (client secrets, Basic credentials,
   * tokens obtained) by `<redacted>`. The check wrapper passes failure texts, notes and error
   * messages through it, since a suite may quote a response body that echoes a credential.
   */
  redact?(text: string): string;
}
