// Validates a report.json document against spec/report.schema.json (JSON Schema 2020-12).
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';

const schema = JSON.parse(readFileSync(new URL('../../spec/report.schema.json', import.meta.url), 'utf8')) as object;
const ajv = new Ajv2020({ allErrors: true, strict: true });
// ajv-formats is CommonJS: its default export arrives wrapped or not depending on the loader.
const addFormats = ((formatsPlugin as unknown as { default?: unknown }).default ?? formatsPlugin) as (a: Ajv2020) => void;
addFormats(ajv);
const validate = ajv.compile(schema);

/** The schema errors as data (empty when the document is valid). */
export function validateReport(document: unknown): Array<{ instancePath: string; message: string }> {
  if (validate(document)) return [];
  return (validate.errors ?? []).map((e) => ({ instancePath: e.instancePath, message: e.message ?? e.keyword }));
}
