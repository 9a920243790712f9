// Identifiers as the checks compare them: a UUID is the same value in upper or lower case
// (RFC 9562), so a target that echoes ids in another case is not told apart.

/** True when `value` is a string naming the same UUID as `id`. */
export function sameId(value: unknown, id: string | undefined): boolean {
  return typeof value === 'string' && id !== undefined && value.toLowerCase() === id.toLowerCase();
}
