// The spec's YAML documents as data. The compiled package carries each one beside its YAML already
// parsed, as `<name>.parsed.json` (scripts/build.ts): JSON.parse reads the catalogue and the API
// document in a few milliseconds where the YAML parser takes several hundred, in every process that
// loads them (the CLI and vitest's worker). A checkout (the sources) parses the YAML once per
// content and keeps the result in node_modules/.cache (the usual place for a tool's cache, owned by
// the checkout's user): the matrix starts hundreds of runs, each of which would parse it again.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The parsed-JSON twin of a YAML file of this folder, as scripts/build.ts names it. */
export const parsedJsonName = (yamlName: string): string => yamlName.replace(/\.yaml$/, '.parsed.json');

/** Where a checkout keeps the YAML documents parsed, by the hash of their text. */
const CACHE = new URL('../node_modules/.cache/conformance-spec/', import.meta.url);

/** A YAML document of spec/ (`openapi.yaml`, `requirements.yaml`), parsed. */
export function readSpecDocument(yamlName: string): unknown {
  const parsed = new URL(`./${parsedJsonName(yamlName)}`, import.meta.url);
  if (existsSync(parsed)) return JSON.parse(readFileSync(parsed, 'utf8'));
  const text = readFileSync(new URL(`./${yamlName}`, import.meta.url), 'utf8');
  const load = createRequire(import.meta.url);
  // Keyed by the parser's version too: another yaml release may read the same text otherwise.
  const parser = `yaml@${(load('yaml/package.json') as { version: string }).version}`;
  const name = `${createHash('sha256').update(`${parser}\n${text}`).digest('hex')}.json`;
  const cached = new URL(name, CACHE);
  try {
    return JSON.parse(readFileSync(cached, 'utf8'));
  } catch {
    // Not parsed yet, or a damaged file (never a half-written one: see the rename below).
  }
  // Loaded only here: the compiled package never needs the YAML parser for its own documents.
  const { parse } = load('yaml') as typeof import('yaml');
  const document: unknown = parse(text);
  try {
    mkdirSync(CACHE, { recursive: true });
    const partial = new URL(`${name}.${process.pid}.${Math.random().toString(36).slice(2)}`, CACHE);
    writeFileSync(partial, JSON.stringify(document));
    renameSync(partial, cached);
  } catch {
    // A read-only checkout: parse each time, as before.
  }
  return document;
}
