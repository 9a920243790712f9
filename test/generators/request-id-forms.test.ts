import { describe, expect, it } from 'vitest';
import * as fc from 'fast-check';
import { validate } from '../../spec/validators.ts';
import { REQUEST_ID_FORMS, requestIdFormsArb } from '../../generators/request-id-forms.ts';

describe('request-id client forms', () => {
  it('every form is a valid RequestId, all of them kept, one UUID holding hyphens', () => {
    fc.assert(
      fc.property(requestIdFormsArb(), (forms) => {
        expect(forms).toHaveLength(REQUEST_ID_FORMS);
        for (const f of forms) expect(validate('RequestId', f.value), f.what).toEqual([]);
        expect(forms.find((f) => f.what === 'a UUID v4, lower case')!.value).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(forms.find((f) => f.what === 'a ULID')!.value).toMatch(/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
      }),
      { numRuns: 50 },
    );
  });
});
