// The evidence of every exchange: redacted once (secrets, tokens, Basic credentials), with a curl
// line that replays it, and appended to the run's exchange log.
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

  function record(out: Outgoing, raw: RawResult, slot?: ExchangeSlot): Exchange {
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
    };
    if (raw.transportError !== undefined) exchange.transportError = redact(raw.transportError);
    else exchange.response = { status: raw.status, headers: redactHeaders(raw.headers, secrets), body: redactBody(raw.text, secrets) };
    appendExchange(exchangeLogPath, exchange, slot);
    return exchange;
  }

  return { record };
}
