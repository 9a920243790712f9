// Tampered forms of a cursor the server issued (4.3: an invalid cursor gives 400 validation_failed;
// blind defect blind6-cursor-signature-prefix-compared compares a signature on its first 43
// characters, so a cursor with characters appended still opened its page). One transform per way
// a caller's copy of a cursor goes wrong or a server reads a cursor laxly.
//
// Two kinds. An `edit` changes the cursor's own characters: an unsigned cursor (4.3 does not
// require a signature) may still decode, to a place of the same listing, so a page is a reading.
// A `frame` only wraps the text the server wrote (characters after it, a percent-encoding the
// query already undid): no decoder of the server's own text reads it as a cursor, so only a
// server that ignores part of what it gets (a prefix compared, a second decoding) takes it.

export type TamperKind = 'edit' | 'frame';

export interface TamperedCursor {
  /** What was done to the cursor (a line of the report). */
  what: string;
  value: string;
  kind: TamperKind;
}

/** The base64url alphabet; a character of it flipped in its top bit changes the decoded bytes. */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** One character of `cursor` replaced at `at` (start, middle or end), the top bit of its 6-bit value flipped. */
export function alterCursor(cursor: string, at: 'start' | 'middle' | 'end'): string {
  const i = at === 'start' ? 0 : at === 'end' ? cursor.length - 1 : Math.floor(cursor.length / 2);
  const c = cursor[i]!;
  const index = ALPHABET.indexOf(c);
  const replacement = index >= 0 ? ALPHABET[index ^ 32]! : c === 'A' ? 'B' : 'A';
  return cursor.slice(0, i) + replacement + cursor.slice(i + 1);
}

const swapCase = (s: string) => s.replace(/[a-zA-Z]/g, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));

/** The first character written as its %XX escape: once the query is decoded, the server holds a `%`. */
const percentFirst = (s: string) => `%${s.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}${s.slice(1)}`;

function percentDecoded(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * What `tamperedCursors` appends: a whole base64 quantum (a lax base64 decoder reads three more
 * bytes, not nothing) of letters only (a numeric cursor with digits appended would be another
 * offset, one the server might issue).
 */
const APPENDED = 'QUJD';

/**
 * Every tampered form of `cursor` that differs from it: characters appended, the last
 * character dropped, one character changed at the start, middle and end, letter case swapped,
 * percent-encoded once more or decoded, base64 padding added or removed, cut to half.
 */
export function tamperedCursors(cursor: string): TamperedCursor[] {
  const padded = cursor.endsWith('=') ? { what: 'its padding removed', value: cursor.replace(/=+$/, '') } : { what: 'padding added', value: `${cursor}=` };
  const forms: TamperedCursor[] = [
    { what: 'with characters appended', value: cursor + APPENDED, kind: 'frame' },
    { what: 'percent-encoded twice', value: percentFirst(cursor), kind: 'frame' },
    { what: 'altered at the start', value: alterCursor(cursor, 'start'), kind: 'edit' },
    { what: 'altered in the middle', value: alterCursor(cursor, 'middle'), kind: 'edit' },
    { what: 'altered at the end', value: alterCursor(cursor, 'end'), kind: 'edit' },
    { what: 'cut by one character', value: cursor.slice(0, -1), kind: 'edit' },
    { what: 'with its letter case swapped', value: swapCase(cursor), kind: 'edit' },
    { what: 'percent-decoded', value: percentDecoded(cursor), kind: 'edit' },
    { ...padded, kind: 'edit' },
    { what: 'cut to half', value: cursor.slice(0, Math.max(1, Math.floor(cursor.length / 2))), kind: 'edit' },
  ];
  const seen = new Set([cursor]);
  return forms.filter((f) => f.value.length > 0 && !seen.has(f.value) && (seen.add(f.value), true));
}

/** The most forms `tamperedCursors` gives. */
export const MAX_TAMPERED_CURSORS = 10;
