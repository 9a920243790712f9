import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCursorCodec } from '../../reference/cursors.ts';
import { MAX_TAMPERED_CURSORS, tamperedCursors } from '../../generators/cursor-forms.ts';
import { SEED } from './helpers.ts';

describe('tampered forms of an issued cursor', () => {
  it('every form differs from the cursor and from each other, at most MAX_TAMPERED_CURSORS, and a signed cursor refuses each', () => {
    const codec = createCursorCodec();
    fc.assert(
      fc.property(fc.nat({ max: 10_000 }), fc.uuid(), (next, bulk) => {
        const cursor = codec.encode({ business: 'b', bulk, filters: { status: null, to: null }, next, issuedAt: 0 });
        const forms = tamperedCursors(cursor);
        expect(forms.length).toBeLessThanOrEqual(MAX_TAMPERED_CURSORS);
        expect(new Set(forms.map((f) => f.value)).size).toBe(forms.length);
        for (const f of forms) {
          expect(f.value, f.what).not.toBe(cursor);
          expect(codec.decode(f.value).ok, f.what).toBe(false);
        }
        // The framed forms are always sent: they need no edit the cursor's alphabet allows.
        expect(forms.filter((f) => f.kind === 'frame').map((f) => f.what)).toEqual(['with characters appended', 'percent-encoded twice']);
      }),
      { seed: SEED, numRuns: 30 },
    );
  });

  it('a prefix compare takes the appended form; a short unsigned cursor gets its forms too', () => {
    const cursor = 'eyJuIjoxMH0.abc';
    const appended = tamperedCursors(cursor).find((f) => f.what === 'with characters appended')!;
    expect(appended.value.startsWith(cursor)).toBe(true);
    expect(tamperedCursors('7').filter((f) => f.kind === 'frame').map((f) => f.value)).toEqual(['7QUJD', '%37']);
    expect(tamperedCursors('YQ==').some((f) => f.value === 'YQ')).toBe(true);
  });
});
