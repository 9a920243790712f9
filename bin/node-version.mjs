// Which Node the checker runs on, decided before anything else loads: on an older Node the bin
// prints one line naming the Node it needs and exits 2, instead of failing deep inside a
// dependency (Node 18 stops at `styleText`, which node:util does not export there).
// The lines are those of vite and rolldown, which vitest runs on; package.json's `engines` is
// `ENGINES_RANGE`, and test/package/node-version.test.ts holds the two together.
// Plain old syntax only (no `?.`, `??`, top-level await): an old Node must parse this file.

/** Each line from its first supported release; a line of `open: true` also admits every later major. */
export const SUPPORTED_LINES = [
  { major: 20, minor: 19, open: false },
  { major: 22, minor: 12, open: true },
];

/** `engines.node` of package.json, written from SUPPORTED_LINES. */
export function enginesRange() {
  return SUPPORTED_LINES.map(function (line) {
    return (line.open ? '>=' : '^') + line.major + '.' + line.minor + '.0';
  }).join(' || ');
}

/** True when `version` ("24.21.0", process.versions.node) is on a supported line. */
export function isSupportedNode(version) {
  var parts = String(version).split('.');
  var major = Number(parts[0]);
  var minor = Number(parts[1]);
  if (!(major >= 0) || !(minor >= 0)) return false;
  return SUPPORTED_LINES.some(function (line) {
    if (major === line.major) return minor >= line.minor;
    return line.open && major > line.major;
  });
}

/** The one line an unsupported Node gets, or '' on a supported one. */
export function nodeVersionProblem(version) {
  if (isSupportedNode(version)) return '';
  var needed = SUPPORTED_LINES.slice().reverse().map(function (line) {
    return line.major + '.' + line.minor + (line.open ? ' or later (the 22 and 24 LTS lines)' : ' or a later ' + line.major + '.x');
  });
  return 'conformance: this is Node ' + version + '; the checker needs Node ' + needed.join(', or ');
}
