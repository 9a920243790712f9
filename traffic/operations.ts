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
  /** The path after the `/v1` version prefix, or undefined when there is none. */
  apiPath?: string;
  query: URLSearchParams;
}

export function parseUrl(url: string): ParsedUrl | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const at = parsed.pathname.indexOf('/v1/');
  return {
    origin: parsed.origin,
    ...(at >= 0 ? { apiPath: parsed.pathname.slice(at + 3) } : {}),
    query: parsed.searchParams,
  };
}

const decode = (segment: string) => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/** The operation an exchange is, or undefined for any other request (token endpoint, unknown paths). */
export function matchOperation(method: string, url: string): MatchedOperation | undefined {
  const parsed = parseUrl(url);
  if (!parsed?.apiPath) return undefined;
  for (const t of templates) {
    if (t.method !== method.toUpperCase()) continue;
    const m = t.pattern.exec(parsed.apiPath);
    if (!m) continue;
    const params: Record<string, string> = {};
    t.names.forEach((name, i) => (params[name] = decode(m[i + 1]!)));
    return { operationId: t.operationId, params, query: parsed.query, origin: parsed.origin };
  }
  return undefined;
}

/** A request to the API's versioned path space that no documented operation matches. */
export function isUnknownApiPath(method: string, url: string): boolean {
  const parsed = parseUrl(url);
  return parsed?.apiPath !== undefined && matchOperation(method, url) === undefined;
}

/** A request to an OAuth token endpoint (`.../oauth2/token`, or any form post with grant_type). */
export function isTokenRequest(method: string, url: string, body: string | undefined): boolean {
  if (method.toUpperCase() !== 'POST') return false;
  const parsed = parseUrl(url);
  if (parsed && /\/oauth2?\/token\/?$/.test(new URL(url).pathname)) return true;
  return body !== undefined && /(^|&)grant_type=/.test(body);
}
