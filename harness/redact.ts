// Redaction of secrets from everything the harness records or prints. Client secrets, the Basic
// credentials built from them and every token obtained are replaced by `<redacted>` wherever they
// appear; Authorization header values keep only their scheme.

export const REDACTED = '<redacted>';

/** Bodies kept in evidence are cut to this many characters (after redaction). */
export const BODY_LIMIT = 4096;

/** Collects the strings that must never be recorded, in every encoding they may travel in. */
export class SecretSet {
  private readonly values = new Set<string>();
  /** list() is called for every header of every exchange: sorted once per change, not per call. */
  private sorted: string[] | undefined;

  constructor(initial: Iterable<string> = []) {
    for (const value of initial) this.add(value);
  }

  add(secret: string | undefined): void {
    // Very short values would redact ordinary text (ids, digits) and protect nothing.
    if (!secret || secret.length < 4 || this.values.has(secret)) return;
    this.sorted = undefined;
    this.values.add(secret);
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) this.values.add(encoded);
    const formEncoded = encoded.replace(/%20/g, '+');
    if (formEncoded !== encoded) this.values.add(formEncoded);
    const jsonEscaped = JSON.stringify(secret).slice(1, -1);
    if (jsonEscaped !== secret) this.values.add(jsonEscaped);
  }

  /** Longest first, so a secret that contains another is replaced whole. */
  list(): string[] {
    return [...this.ordered()];
  }

  /** The same list without a copy, for the hot path of redactText. */
  ordered(): readonly string[] {
    this.sorted ??= [...this.values].sort((a, b) => b.length - a.length);
    return this.sorted;
  }

  get size(): number {
    return this.values.size;
  }
}

export function redactText(text: string, secrets: SecretSet | Iterable<string>): string {
  const list = secrets instanceof SecretSet ? secrets.ordered() : new SecretSet(secrets).ordered();
  let out = text;
  for (const secret of list) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/**
 * `Bearer abc` -> `Bearer <redacted>`; anything else -> `<redacted>`, keeping a known scheme. Each
 * further part after the credential stays a part of its own (`Bearer abc extra` -> `Bearer
 * <redacted> <redacted>`): the shape tells a reader of the log a malformed value, the values nothing.
 */
export function redactAuthorization(value: string): string {
  const match = /^\s*(Bearer|Basic)\b/i.exec(value);
  if (!match) return REDACTED;
  const parts = value.slice(match[0].length).trim().split(/\s+/).filter((p) => p !== '');
  return [match[1], ...(parts.length > 1 ? parts.map(() => REDACTED) : [REDACTED])].join(' ');
}

const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

export function redactHeaders(headers: Record<string, string>, secrets: SecretSet): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'authorization' || lower === 'proxy-authorization') out[name] = redactAuthorization(value);
    else if (CREDENTIAL_HEADERS.has(lower)) out[name] = REDACTED;
    else out[name] = redactText(value, secrets);
  }
  return out;
}

/** Redacts first, then cuts, so a cut can never leave part of a secret behind. */
export function redactBody(body: string | undefined, secrets: SecretSet, limit = BODY_LIMIT): string | undefined {
  if (body === undefined) return undefined;
  const clean = redactText(body, secrets);
  if (clean.length <= limit) return clean;
  return `${clean.slice(0, limit)}… [cut: ${clean.length - limit} more characters]`;
}
