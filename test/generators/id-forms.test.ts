import { describe, expect, it } from 'vitest';
import { validate } from '../../spec/validators.ts';
import { OTHER_ID_FORMS, upperCaseForm } from '../../generators/id-forms.ts';

const ID = '019a10e4-9b34-7d51-9b8e-f8cd477ddd2d';

describe('path id forms', () => {
  it('upper case is still a UUIDv7 by the pattern; every other form is none', () => {
    expect(validate('UuidV7', upperCaseForm(ID).value)).toEqual([]);
    for (const form of OTHER_ID_FORMS.map((f) => f(ID))) {
      expect(form.value, form.what).not.toBe(ID);
      expect(validate('UuidV7', form.value).length, form.what).toBeGreaterThan(0);
    }
  });

  it('the UUIDv4 form changes the version nibble only', () => {
    const v4 = OTHER_ID_FORMS.map((f) => f(ID)).find((f) => f.what === 'as a UUIDv4')!.value;
    expect(v4).toBe('019a10e4-9b34-4d51-9b8e-f8cd477ddd2d');
  });
});
