// Identifiers as the checks compare them: a UUID is the same value in upper or lower case
// (RFC 9562), so where identity is what counts an id in another case is the same id; where an
// answer echoes the business of the path, a client treating ids as opaque (2.1) compares strings.

/** True when `value` is a string naming the same UUID as `id`. */
export function sameId(value: unknown, id: string | undefined): boolean {
  return typeof value === 'string' && id !== undefined && value.toLowerCase() === id.toLowerCase();
}

/**
 * True when `value` names the UUID `id` in a spelling a client that treats ids as opaque (2.1)
 * recognises: as `id` is spelt (the path's spelling, which the client chose), or in lower case, the
 * form RFC 9562 (section 4) outputs. An upper-case echo of a lower-case id is the same UUID, but
 * only to a client that parses it, which 2.1 tells clients not to do.
 */
export function spelledAsSent(value: unknown, id: string | undefined): boolean {
  return typeof value === 'string' && id !== undefined && (value === id || (value === value.toLowerCase() && value === id.toLowerCase()));
}
