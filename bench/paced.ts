// The pace a whole run keeps behind a host's rate limit (`serve --rate-limit N`), read from its
// exchange log: the API requests a second from the first to the last sent, beside the limit, and
// the answers 429 met on the way. Only the API's origin counts: the token endpoint is another, paced
// apart.

export interface PaceFigures {
  /** The host's limit, requests a second. */
  limit: number;
  /** Whether the run was told it (CONFORMANCE_RATE) or learned it from 429s. */
  declared: boolean;
  /** API requests sent, 429s included. */
  requests: number;
  /** API requests a second, first to last sent. */
  perSecond: number;
  answers429: number;
}

interface LoggedExchange {
  request?: { url?: string };
  sentAt?: number;
  response?: { status?: number };
}

/** The pace of a run's exchange log lines to `apiOrigin`, behind a limit of `limit` a second. */
export function keptPace(lines: readonly string[], apiOrigin: string, limit: number, declared: boolean): PaceFigures {
  const api = lines
    .map((line) => JSON.parse(line) as LoggedExchange)
    .filter((e) => typeof e.sentAt === 'number' && URL.canParse(e.request?.url ?? '') && new URL(e.request!.url!).origin === apiOrigin);
  const times = api.map((e) => e.sentAt!);
  const spanS = api.length > 1 ? (Math.max(...times) - Math.min(...times)) / 1000 : Number.NaN;
  return {
    limit,
    declared,
    requests: api.length,
    perSecond: (api.length - 1) / spanS,
    answers429: api.filter((e) => e.response?.status === 429).length,
  };
}
