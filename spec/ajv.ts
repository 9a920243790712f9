// ajv and ajv-formats, loaded at their first use rather than at import: both are CommonJS, so a
// synchronous require does it. A process that only reads the suites' declarations (`plan`,
// harness/gating/declarations.ts) never pays their ~80 ms of loading.
import { createRequire } from 'node:module';
import type { Ajv2020 } from 'ajv/dist/2020.js';

const load = createRequire(import.meta.url);

export type { Ajv2020 };

/** A new 2020-12 ajv with the given options and ajv-formats' formats. */
export function newAjv(options: ConstructorParameters<typeof Ajv2020>[0]): Ajv2020 {
  const { Ajv2020: AjvClass } = load('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const formats = load('ajv-formats') as { default: (ajv: Ajv2020) => void };
  const instance = new AjvClass(options);
  formats.default(instance);
  return instance;
}

/** ajv-formats' full format table (each a RegExp, a function, or { validate }). */
export function fullFormats(): Record<string, unknown> {
  return (load('ajv-formats/dist/formats.js') as { fullFormats: Record<string, unknown> }).fullFormats;
}
