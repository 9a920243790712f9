// The authorization server origin: POST /oauth2/token, OAuth 2.0 client credentials with
// client_secret_basic only (5.1, 5.2), issuing JWTs for the audience `service-external-api` (5.3).
// Its request and response shape follow RFC 6749 (the document does not show them, 5.10).
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { ActiveDefects } from './defects.ts';
import type { Store } from './store.ts';
import { AUDIENCE, type TokenService } from './tokens.ts';
import { REQUEST_ID, generateRequestId } from './ids.ts';

function send(res: ServerResponse, req: IncomingMessage, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const given = req.headers['x-request-id'];
  const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : generateRequestId();
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    // RFC 6749 5.1: token responses are never cached.
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
    'X-Request-Id': requestId,
    ...headers,
  });
  res.end(text);
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** RFC 6749 2.3.1: the Basic user and password are form-encoded before base64. */
function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  const m = header ? /^Basic[ ]+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    const unform = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

/** The request listener of the auth origin (attached once its port, the token issuer, is known). */
export function createAuthHandler(store: Store, tokens: TokenService, defects: ActiveDefects = new Set()): RequestListener {
  /** Until when (ms) each client's last token is valid: read only by the re-issue defects. */
  const liveUntil = new Map<string, number>();
  /** Until when (ms) each client's authentication is trusted: read only by the `blind6-token-client-auth-cached` defect. */
  const authenticatedUntil = new Map<string, number>();
  return (req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= 64 * 1024) chunks.push(c);
    });
    req.on('end', () => {
      void respond(req, res, Buffer.concat(chunks).toString('utf8')).catch(() => {
        if (!res.headersSent) send(res, req, 500, { error: 'server_error' });
      });
    });
  };

  async function respond(req: IncomingMessage, res: ServerResponse, bodyText: string): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/oauth2/token') return send(res, req, 404, { error: 'not_found' });
    if (req.method !== 'POST') return send(res, req, 405, { error: 'invalid_request', error_description: 'Use POST.' }, { Allow: 'POST' });
    const form = new URLSearchParams(bodyText);
    // 5.1: client_secret_basic only; RFC 6749 5.2 invalid_client with a Basic challenge.
    const credentials = basicCredentials(req.headers.authorization);
    const app = credentials ? store.application(credentials.id) : undefined;
    // 5.1: a wrong secret is refused (the defect compares only as many characters as the secret has).
    const secret = credentials && app && defects.has('token-secret-prefix-accepted') ? credentials.secret.slice(0, app.clientSecret.length) : credentials?.secret;
    // 5.1: every request authenticates (the blind6 defect trusts a client id that authenticated
    // while the token it got is still valid, whatever secret comes with it).
    const trusted = credentials !== undefined && app !== undefined && defects.has('blind6-token-client-auth-cached') && (authenticatedUntil.get(app.clientId) ?? 0) > Date.now();
    if (!credentials || !app || (!trusted && (secret === undefined || !sameSecret(secret, app.clientSecret)))) {
      return send(res, req, 401, { error: 'invalid_client', error_description: 'Client authentication failed.' }, {
        'WWW-Authenticate': 'Basic realm="oauth2", charset="UTF-8"',
      });
    }
    const grantType = form.get('grant_type');
    if (!grantType) return send(res, req, 400, { error: 'invalid_request', error_description: 'grant_type is required.' });
    if (grantType !== 'client_credentials') return send(res, req, 400, { error: 'unsupported_grant_type' });
    const audience = form.get('audience');
    // An audience other than the API's is refused (RFC 8707 error code).
    if (audience !== null && audience !== AUDIENCE) return send(res, req, 400, { error: 'invalid_target' });
    // 5.1: every client-credentials request gets a token that authenticates. The defects treat a
    // request while the client's last token is still valid differently: refused, or signed with
    // the next key, which the API has not been given yet.
    const live = (liveUntil.get(app.clientId) ?? 0) > Date.now();
    if (live && defects.has('token-reissue-refused')) {
      return send(res, req, 400, { error: 'invalid_request', error_description: 'A token issued to this client is still valid.' });
    }
    const { token, expiresIn } = await tokens.issue(app.clientId, 'valid', live && defects.has('token-reissue-unpublished-key') ? 'next' : 'current');
    if (defects.has('token-reissue-refused') || defects.has('token-reissue-unpublished-key')) liveUntil.set(app.clientId, Date.now() + expiresIn * 1000);
    if (defects.has('blind6-token-client-auth-cached')) authenticatedUntil.set(app.clientId, Date.now() + expiresIn * 1000);
    send(res, req, 200, { access_token: token, token_type: 'Bearer', expires_in: expiresIn });
  }
}
