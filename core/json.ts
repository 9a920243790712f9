// JSON values as the project reads them.

/** A JSON object: not null, not an array. */
export function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}
