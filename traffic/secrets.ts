// Every credential the traffic carries, so that none reaches a report, a log line or a message:
// bearer tokens, Basic credentials (encoded and decoded), client secrets in token request forms,
// tokens in token responses, and the secrets of the env file.
import { SecretSet } from '../harness/redact.ts';
import { objectOf } from './context.ts';
import type { TrafficExchange } from './model.ts';

const TOKEN_MEMBERS = ['access_token', 'refresh_token', 'id_token'];
const FORM_SECRETS = ['client_secret', 'client_assertion', 'password', 'refresh_token', 'code', 'access_token'];

/** A value a recorder already redacted carries no secret, and must not become one itself. */
const add = (secrets: SecretSet, value: string) => {
  if (!value.includes('<redacted>')) secrets.add(value);
};

function addAuthorization(secrets: SecretSet, value: string | undefined): void {
  if (!value || value.includes('<redacted>')) return;
  const [scheme, ...rest] = value.trim().split(/\s+/);
  const credential = rest.join(' ');
  if (!credential) {
    // A bare value with no scheme is the credential itself; a bare scheme word is not.
    if (scheme && !/^(bearer|basic|token|digest)$/i.test(scheme)) add(secrets, scheme);
    return;
  }
  add(secrets, credential);
  if (/^basic$/i.test(scheme ?? '')) {
    const decoded = Buffer.from(credential, 'base64').toString('utf8');
    add(secrets, decoded);
    const colon = decoded.indexOf(':');
    if (colon >= 0) add(secrets, decodeURIComponentSafe(decoded.slice(colon + 1)));
  }
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function collectSecrets(exchanges: readonly TrafficExchange[], extra: readonly string[] = []): SecretSet {
  const secrets = new SecretSet(extra);
  for (const ex of exchanges) addSecretsOf(secrets, ex);
  return secrets;
}

/**
 * Text in which a form could name one of FORM_SECRETS: the name written as it is, followed by `=`,
 * or some percent-encoding (a name decoded from it), or a tab or line break (which the URL parser
 * drops). Without any, no pair of the form is one of them, so a JSON body (every submission passes
 * here) is not parsed as a form.
 */
const MAY_NAME_SECRET = new RegExp(`(?:${FORM_SECRETS.join('|')})=|[%\\t\\n\\r]`);

function fromForm(secrets: SecretSet, body: string | undefined): void {
  if (!body || !body.includes('=') || !MAY_NAME_SECRET.test(body)) return;
  for (const [name, value] of new URLSearchParams(body)) if (FORM_SECRETS.includes(name)) add(secrets, value);
}

/** Adds the credentials one exchange carries (the judge calls it on every exchange as it streams). */
export function addSecretsOf(secrets: SecretSet, ex: TrafficExchange): void {
  addAuthorization(secrets, ex.request.headers['authorization']);
  addAuthorization(secrets, ex.request.headers['proxy-authorization']);
  fromForm(secrets, ex.request.body);
  // A URL without `?` has no query (parsing every URL was a twentieth of the judge's time), nor one
  // whose text could name a secret (the URL parser adds percent-encodings, never removes them).
  const url = ex.request.url;
  const query = url.indexOf('?');
  if (query >= 0 && MAY_NAME_SECRET.test(url.slice(query))) {
    try {
      fromForm(secrets, new URL(url).search.slice(1));
    } catch {
      // Not a URL: nothing in a query.
    }
  }
  const body = ex.response.body;
  // A plain search first: every answer passes here, and almost none carries a token.
  if (body && body.includes('_token"') && /"(access|refresh|id)_token"/.test(body)) {
    try {
      const json = objectOf(JSON.parse(body));
      for (const name of TOKEN_MEMBERS) if (typeof json?.[name] === 'string') add(secrets, json[name] as string);
    } catch {
      // A cut or non-JSON body: the token cannot be read, and was redacted by its recorder if it came from a run.
    }
  }
}
