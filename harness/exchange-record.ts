// The evidence of every exchange: redacted once (secrets, tokens, Basic credentials), with a curl
// line that replays it, and appended to the run's exchange log.
import { createHash } from 'node:crypto';
import { appendExchange, type ExchangeSlot } from './exchange-log.ts';
import type { Exchange } from '../core/model.ts';
import { REDACTED, redactBody, redactHeaders, redactText, type SecretSet } from './redact.ts';
import type { Outgoing, RawResult } from './transport.ts';

/** Bodies in curl lines are kept longer than evidence bodies, so a replay stays whole more often. */
const CURL_BODY_LIMIT = 16 * 1024;

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export interface ExchangeRecorder {
  /** Redacts, appends to the exchange log (at the place `slot` took, if any) and returns the exchange. */
  record(out: Outgoing, raw: RawResult, slot?: ExchangeSlot): Exchange;
}

export function createRecorder(secrets: SecretSet, exchangeLogPath: string): ExchangeRecorder {
  const redact = (text: string) => redactText(text, secrets);

  function curlLine(out: Outgoing): string {
    const parts = ['curl', '-sS', '-i', '-X', out.method, shellQuote(redact(out.url))];
    for (const [name, value] of Object.entries(out.headers)) {
      if (name.toLowerCase() === 'authorization') {
        // Placeholders in double quotes so the shell fills them in on replay.
        if (/^Bearer\s/i.test(value)) parts.push('-H', '"Authorization: Bearer $TOKEN"');
        else if (/^Basic\s/i.test(value)) parts.push('-H', '"Authorization: Basic $BASIC_CREDENTIALS"');
        else parts.push('-H', shellQuote(`Authorization: ${REDACTED}`));
      } else {
        parts.push('-H', shellQuote(`${name}: ${redact(value)}`));
      }
    }
    if (out.body !== undefined) parts.push('--data-raw', shellQuote(redactBody(out.body, secrets, CURL_BODY_LIMIT) ?? ''));
    return parts.join(' ');
  }

  /** The bearer token's fingerprint (16 hex digits of its SHA-256): a token stands for its caller and cannot be read back from it. */
  function callerOf(out: Outgoing): string | undefined {
    const authorization = Object.entries(out.headers).find(([name]) => name.toLowerCase() === 'authorization')?.[1];
    const token = authorization && /^\s*Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    return token ? `token:${createHash('sha256').update(token).digest('hex').slice(0, 16)}` : undefined;
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
