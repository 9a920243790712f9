// Which documented operation an exchange is: the method and the path after `/v1/` matched against
// the path templates of spec/openapi.yaml (through spec/validators.ts), so a base URL with a
// prefix (`https://host/api/v1/...`) matches too.
import { operationIds, type OperationId } from '../spec/contract.ts';
import { operation } from '../spec/validators.ts';

export interface MatchedOperation {
  operationId: OperationId;
  /** Path parameters by their document names (businessId, bulkMessageId, ...), decoded. */
  params: Record<string, string>;
  query: URLSearchParams;
  /** scheme://host:port of the request. */
  origin: string;
}

interface Template {
  operationId: OperationId;
  method: string;
  pattern: RegExp;
  names: string[];
}

const templates: Template[] = operationIds.map((operationId) => {
  const info = operation(operationId);
  const names: string[] = [];
  // Path parameters are single segments; everything else is literal.
  const source = info.path
    .replace(/^\/v1/, '')
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const name = /^\{([^}]+)\}$/.exec(part)?.[1];
      if (name) {
        names.push(name);
        return '([^/]+)';
      }
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return { operationId, method: info.method.toUpperCase(), pattern: new RegExp(`^${source}/?$`), names };
});

export interface ParsedUrl {
  origin: string;
  pathname: string;
  /** The path after the `/v1` version prefix, or undefined when there is none. */
  apiPath: string | undefined;
  query: URLSearchParams;
}

export function parseUrl(url: string): ParsedUrl | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const pathname = parsed.pathname;
  const at = pathname.indexOf('/v1/');
  return { origin: parsed.origin, pathname, apiPath: at >= 0 ? pathname.slice(at + 3) : undefined, query: parsed.searchParams };
}

const decode = (segment: string) => {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/** The operation an exchange is, or undefined for any other request (token endpoint, unknown paths). */
export function matchOperation(method: string, url: string): MatchedOperation | undefined {
  const parsed = parseUrl(url);
  return parsed ? operationOf(method, parsed) : undefined;
}

/** The operation of a URL parsed once (the judge parses each exchange's URL a single time). */
export function operationOf(method: string, parsed: ParsedUrl): MatchedOperation | undefined {
  if (!parsed.apiPath) return undefined;
  const upper = method.toUpperCase();
  for (const t of templates) {
    if (t.method !== upper) continue;
    const m = t.pattern.exec(parsed.apiPath);
    if (!m) continue;
    const params: Record<string, string> = {};
    t.names.forEach((name, i) => (params[name] = decode(m[i + 1]!)));
    return { operationId: t.operationId, params, query: parsed.query, origin: parsed.origin };
  }
  return undefined;
}

/** A request to an OAuth token endpoint (`.../oauth2/token`, or any form post with grant_type). */
export function tokenRequestOf(method: string, parsed: ParsedUrl | undefined, body: string | undefined): boolean {
  if (method.toUpperCase() !== 'POST') return false;
  if (parsed && /\/oauth2?\/token\/?$/.test(parsed.pathname)) return true;
  return body !== undefined && /(^|&)grant_type=/.test(body);
}
