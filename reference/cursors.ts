// Opaque recipient-listing cursors (4.3): HMAC-signed, bound to business, bulk, filters and the
// default ordering, valid for 24 hours from issue.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const CURSOR_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** The one ordering the listing offers: acceptance order of the entries. */
export const DEFAULT_ORDERING = 'position';

export interface CursorFilters {
  status: string | null;
  to: string | null;
}

export interface CursorPayload {
  v: 1;
  business: string;
  bulk: string;
  filters: CursorFilters;
  ordering: string;
  /** Position of the first row of the next page. */
  next: number;
  issuedAt: number;
  /** The page size it was issued at: written only by the defects that bind a cursor to it. */
  limit?: number;
}

export type CursorReading =
  | { ok: true; payload: CursorPayload }
  | { ok: false; reason: 'malformed' | 'signature' };

export interface CursorCodec {
  encode(payload: Omit<CursorPayload, 'v' | 'ordering'>): string;
  /** Checks form and signature only; binding and lifetime are the listing's rules. */
  decode(cursor: string): CursorReading;
}

export function createCursorCodec(): CursorCodec {
  const secret = randomBytes(32);
  const sign = (data: string) => createHmac('sha256', secret).update(data).digest('base64url');
  return {
    encode(payload) {
      const data = Buffer.from(JSON.stringify({ v: 1, ordering: DEFAULT_ORDERING, ...payload })).toString('base64url');
      return `${data}.${sign(data)}`;
    },
    decode(cursor) {
      const dot = cursor.indexOf('.');
      if (dot <= 0 || dot !== cursor.lastIndexOf('.')) return { ok: false, reason: 'malformed' };
      const data = cursor.slice(0, dot);
      const mac = cursor.slice(dot + 1);
      const expected = Buffer.from(sign(data));
      const given = Buffer.from(mac);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'signature' };
      try {
        const payload = JSON.parse(Buffer.from(data, 'base64url').toString('utf8')) as CursorPayload;
        if (
          payload?.v !== 1 ||
          typeof payload.business !== 'string' ||
          typeof payload.bulk !== 'string' ||
          typeof payload.next !== 'number' ||
          typeof payload.issuedAt !== 'number' ||
          typeof payload.filters !== 'object' ||
          payload.filters === null
        ) {
          return { ok: false, reason: 'malformed' };
        }
        return { ok: true, payload };
      } catch {
        return { ok: false, reason: 'malformed' };
      }
    },
  };
}
