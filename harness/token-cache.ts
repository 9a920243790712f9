// Access tokens of the run's applications: fetched once, shared by concurrent callers, renewed
// shortly before they expire.
import type { AppName } from './client.ts';

/** A cached token is renewed this long before it expires. */
const TOKEN_RENEW_MARGIN_MS = 30_000;
/** Lifetime assumed when the token response states none (its shape is not in the document). */
export const DEFAULT_TOKEN_LIFETIME_S = 300;

export interface ObtainedToken {
  token: string;
  lifetimeS: number;
}

export function createTokenCache(fetchToken: (app: AppName) => Promise<ObtainedToken>): (app: AppName) => Promise<string> {
  const tokens = new Map<AppName, { token: string; renewAt: number }>();
  const pending = new Map<AppName, Promise<string>>();
  return async function token(app) {
    const cached = tokens.get(app);
    if (cached && Date.now() < cached.renewAt) return cached.token;
    let fetching = pending.get(app);
    if (!fetching) {
      fetching = fetchToken(app)
        .then(({ token, lifetimeS }) => {
          tokens.set(app, { token, renewAt: Date.now() + lifetimeS * 1000 - TOKEN_RENEW_MARGIN_MS });
          return token;
        })
        .finally(() => pending.delete(app));
      pending.set(app, fetching);
    }
    return fetching;
  };
}
