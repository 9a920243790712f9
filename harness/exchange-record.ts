// The evidence of every exchange: redacted once (secrets, tokens, Basic credentials), with a curl
// line that replays it, and appended to the run's exchange log.
import { callerFingerprinter } from './caller-fingerprint.ts';
import { appendExchange, type ExchangeSlot } from './exchange-log.ts';
import type { Exchange } from '../core/model.ts';
import { redactAuthorization, redactBody, redactHeaders, redactText, type SecretSet } from './redact.ts';
import type { Outgoing, RawResult } from './transport.ts';

/** Bodies in curl lines are kept longer than evidence bodies, so a replay stays whole more often. */
const CURL_BODY_LIMIT = 16 * 1024;

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Inside double quotes the shell still expands these; everything else stays literal. */
const doubleQuote = (s: string) => `"${s.replace(/[\\"$`]/g, (c) => `\\${c}`)}"`;

/**
 * The Authorization header of a curl line, replayable without its secret: each secret the value
 * carries becomes a shell variable (`$TOKEN`, or `$BASIC_CREDENTIALS` under the Basic scheme),
 * and the rest is kept as sent, so a malformed value (`Bearer <token> extra`, a lower-case scheme,
 * two spaces) replays malformed rather than as a valid `Bearer $TOKEN`. A value carrying no known
 * secret (a tampered or made-up token) may still be derived from one: it replays as its scheme and
 * `<redacted>`, an invalid credential as it was.
 */
export function authorizationForReplay(value: string, secrets: SecretSet): string {
  const placeholder = /^\s*Basic\b/i.test(value) ? '$BASIC_CREDENTIALS' : '$TOKEN';
  const pieces: string[] = [];
  let rest = value;
  let found = false;
  for (;;) {
    const at = secrets.ordered().map((secret) => ({ secret, index: rest.indexOf(secret) })).filter((m) => m.index >= 0);
    if (at.length === 0) break;
    // The earliest occurrence, the longest secret there (the list is longest first).
    const first = at.reduce((a, b) => (b.index < a.index ? b : a));
    pieces.push(doubleQuote(rest.slice(0, first.index)).slice(1, -1), placeholder);
    rest = rest.slice(first.index + first.secret.length);
    found = true;
  }
  if (!found) return shellQuote(`Authorization: ${redactAuthorization(value)}`);
  // `$TOKENA` would name another variable: braces where a name character follows.
  const line = `Authorization: ${pieces.join('')}${doubleQuote(rest).slice(1, -1)}`;
  return `"${line.replace(/\$(TOKEN|BASIC_CREDENTIALS)(?=\w)/g, '${$1}')}"`;
}

export interface ExchangeRecorder {
  /** Redacts, appends to the exchange log (at the place `slot` took, if any) and returns the exchange. */
  record(out: Outgoing, raw: RawResult, slot?: ExchangeSlot): Exchange;
}

export function createRecorder(secrets: SecretSet, exchangeLogPath: string): ExchangeRecorder {
  const redact = (text: string) => redactText(text, secrets);
  const fingerprint = callerFingerprinter(exchangeLogPath);

  function curlLine(out: Outgoing): string {
    const parts = ['curl', '-sS', '-i', '-X', out.method, shellQuote(redact(out.url))];
    for (const [name, value] of Object.entries(out.headers)) {
      if (name.toLowerCase() === 'authorization') {
        parts.push('-H', authorizationForReplay(value, secrets));
      } else {
        parts.push('-H', shellQuote(`${name}: ${redact(value)}`));
      }
    }
    if (out.body !== undefined) parts.push('--data-raw', shellQuote(redactBody(out.body, secrets, CURL_BODY_LIMIT) ?? ''));
    return parts.join(' ');
  }

  /** The bearer token's fingerprint (harness/caller-fingerprint.ts): a token stands for its caller and cannot be read back from it. */
  function callerOf(out: Outgoing): string | undefined {
    const authorization = Object.entries(out.headers).find(([name]) => name.toLowerCase() === 'authorization')?.[1];
    const token = authorization && /^\s*Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    return token ? fingerprint(token) : undefined;
  }

  function record(out: Outgoing, raw: RawResult, slot?: ExchangeSlot): Exchange {
    const caller = callerOf(out);
    const exchange: Exchange = {
      request: {
        method: out.method,
        url: redact(out.url),
        headers: redactHeaders(out.headers, secrets),
        ...(out.body !== undefined ? { body: redactBody(out.body, secrets) } : {}),
      },
      ...(raw.sentAt !== undefined ? { sentAt: raw.sentAt } : {}),
      durationMs: raw.durationMs,
      curl: curlLine(out),
      ...(caller !== undefined ? { caller } : {}),
    };
    if (raw.transportError !== undefined) exchange.transportError = redact(raw.transportError);
    else exchange.response = { status: raw.status, headers: redactHeaders(raw.headers, secrets), body: redactBody(raw.text, secrets) };
    appendExchange(exchangeLogPath, exchange, slot);
    return exchange;
  }

  return { record };
}
