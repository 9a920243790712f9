import { describe, expect, it } from 'vitest';
import { invalidQueryValue } from '../../suites/support/listings.ts';
import { matrixRows } from '../../suites/support/authorization.ts';

describe('a value each query parameter refuses (concealment under an invalid query)', () => {
  it("gives one for every query parameter of the spec's reads naming a resource, from its schema", () => {
    const rows = matrixRows().filter((r) => !r.writes && r.resourceParam !== undefined && r.query.length > 0);
    expect(rows.length).toBeGreaterThan(0);
    const listing = rows.find((r) => r.operation === 'listSmsBulkMessageRecipients')!;
    const values = Object.fromEntries(listing.query.map((q) => [q.name, invalidQueryValue(q.schema)?.value]));
    // 4.3: a page size one past 1000, an empty cursor, a status outside the enum, a number not E.164.
    expect(values).toEqual({ limit: '1001', cursor: '', status: 'not-a-value', to: 'not-a-value' });
    for (const row of rows) for (const q of row.query) expect(invalidQueryValue(q.schema), `${row.operation} ?${q.name}`).toBeDefined();
  });

  it('takes the first bound a schema has, a wrong type without one, and nothing where the schema refuses nothing', () => {
    expect(invalidQueryValue({ type: 'integer', minimum: 1 })).toEqual({ value: '0', breaks: 'below the minimum' });
    expect(invalidQueryValue({ type: 'integer' })?.value).toBe('not-a-number');
    expect(invalidQueryValue({ type: 'string', enum: ['not-a-value', 'y'] })?.value).toBe('x');
    expect(invalidQueryValue({ type: 'string', maxLength: 3 })?.value).toBe('xxxx');
    expect(invalidQueryValue({ type: 'string' })).toBeUndefined();
    expect(invalidQueryValue({ type: 'boolean' })).toBeUndefined();
  });
});
