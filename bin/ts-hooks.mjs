// Module hooks of the `conformance` command: tsx's loader for TypeScript files, Node's own loader
// for everything else. Sending every JavaScript dependency (vitest, vite) through tsx's transform
// too added about 100 MB to each run's memory for nothing.
import { initialize as tsxInitialize, load as tsxLoad, resolve as tsxResolve } from 'tsx/esm';

export const initialize = tsxInitialize;
export const resolve = tsxResolve;

const TYPESCRIPT = /\.[cm]?tsx?(?:[?#].*)?$/;

export function load(url, context, nextLoad) {
  return TYPESCRIPT.test(url) ? tsxLoad(url, context, nextLoad) : nextLoad(url, context);
}
