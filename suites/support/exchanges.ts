// Every exchange of the run so far, read from the run's exchange log (harness/exchange-log.ts),
// for the cross-topic checks (problem-details, request-id). The log is redacted and bodies are
// cut, so readers treat a body that does not parse as "not inspectable", never as a violation.
import { readAllExchanges } from '../../harness/exchange-log.ts';
import type { Exchange, RecordedResponse, SuiteConfig } from '../../core/model.ts';
import { openapi } from '../../spec/contract.ts';

/** An exchange with a response from the API host (token endpoint and control origin left out). */
export interface ApiExchange extends Exchange {
  response: RecordedResponse;
}

export function runExchanges(config: SuiteConfig): Exchange[] {
  return readAllExchanges(config.settings.exchangeLogPath);
}

/**
 * True when the URL is under the configured API base and is not the token endpoint, which may
 * share the API's origin but whose answers section 4 does not describe (AUTH-TOKEN-SHAPE).
 */
export function isApiUrl(config: SuiteConfig, url: string): boolean {
  const base = config.target.baseUrl.replace(/\/+$/, '');
  if (url.split('?')[0] === config.target.tokenUrl.split('?')[0]) return false;
  return url === base || url.startsWith(`${base}/`) || url.startsWith(`${base}?`);
}

/** The run's exchanges with the API host that got a response. */
export function apiExchanges(config: SuiteConfig): ApiExchange[] {
  return runExchanges(config).filter(
    (x): x is ApiExchange => x.response !== undefined && isApiUrl(config, x.request.url),
  );
}

/** Case-insensitive header lookup on a recorded message. */
export function headerOf(headers: Record<string, string>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

/** The parsed JSON body, or undefined when absent, cut by the log's size limit, or not JSON. */
export function jsonBodyOf(response: RecordedResponse): unknown {
  if (response.body === undefined || response.body === '') return undefined;
  try {
    return JSON.parse(response.body);
  } catch {
    return undefined;
  }
}

/** Method and path pattern of every operation of section 4, from the OpenAPI document. */
const OPERATIONS: Array<{ method: string; pattern: RegExp }> = Object.entries(openapi.paths).flatMap(([template, item]) =>
  (['get', 'post', 'put', 'patch', 'delete'] as const)
    .filter((m) => item[m] !== undefined)
    .map((m) => ({
      method: m.toUpperCase(),
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`),
    })),
);

/**
 * True when the exchange calls an operation of the document (method and path). What a path that
 * is no operation answers is not shown (AUTH-UNKNOWN-PATH), so its format is not judged.
 */
export function isDocumentedOperation(config: SuiteConfig, exchange: Exchange): boolean {
  const base = new URL(config.target.baseUrl.replace(/\/+$/, '') + '/');
  let path: string;
  try {
    path = new URL(exchange.request.url).pathname;
  } catch {
    return false;
  }
  const prefix = base.pathname.replace(/\/+$/, '');
  if (prefix && path.startsWith(prefix)) path = path.slice(prefix.length);
  return OPERATIONS.some((op) => op.method === exchange.request.method.toUpperCase() && op.pattern.test(path));
}
