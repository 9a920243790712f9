// The Node binaries CI runs besides the machine's own, each pinned in one file of .ci/ and fetched
// by .ci/fetch-node from the registry's binary package into .cache/node/<version>/ of the clone:
// the second supported line (`.ci/node-second-line`, the pass of issue 35, also timed by the bench)
// and a Node too old to run the checker (`.ci/node-too-old`, for the bin's version guard).
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export type NodePin = 'node-second-line' | 'node-too-old';

export interface PinnedNode {
  version: string;
  /** Where .ci/fetch-node puts its binary. */
  path: string;
  installed: boolean;
}

export function pinnedNode(pin: NodePin): PinnedNode {
  const version = readFileSync(join(ROOT, '.ci', pin), 'utf8').trim();
  const path = join(ROOT, '.cache', 'node', version, 'bin', 'node');
  return { version, path, installed: existsSync(path) };
}

/**
 * `env` with `node` on PATH being this binary: the bin's first lines (`exec node ...`), npm and npx
 * then all run on it, as on a machine where it is the installed Node.
 */
export function withNodeFirst(node: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, PATH: `${dirname(node)}${delimiter}${env.PATH ?? ''}` };
}
