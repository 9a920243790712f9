// The spec's YAML documents as data. The compiled package carries each one beside its YAML already
// parsed, as `<name>.parsed.json` (scripts/build.ts): JSON.parse reads the catalogue and the API
// document in a few milliseconds where the YAML parser takes several hundred, in every process that
// loads them (the CLI and vitest's worker). The sources have no such file and parse the YAML.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The parsed-JSON twin of a YAML file of this folder, as scripts/build.ts names it. */
export const parsedJsonName = (yamlName: string): string => yamlName.replace(/\.yaml$/, '.parsed.json');

/** A YAML document of spec/ (`openapi.yaml`, `requirements.yaml`), parsed. */
export function readSpecDocument(yamlName: string): unknown {
  const parsed = new URL(`./${parsedJsonName(yamlName)}`, import.meta.url);
  if (existsSync(parsed)) return JSON.parse(readFileSync(parsed, 'utf8'));
  // Loaded only here: the compiled package never needs the YAML parser for its own documents.
  const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return parse(readFileSync(new URL(`./${yamlName}`, import.meta.url), 'utf8'));
}
