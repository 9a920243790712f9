// Identifiers: UUIDv7 (2.1) carrying the clock's real acceptance time in the top 48 bits.
import { randomBytes } from 'node:crypto';

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** A version-7 UUID whose timestamp field is `ms`. Random bits come from the CSPRNG. */
export function uuidv7(ms: number): string {
  const b = randomBytes(16);
  let t = Math.max(0, Math.floor(ms));
  for (let i = 5; i >= 0; i--) {
    b[i] = t % 256;
    t = Math.floor(t / 256);
  }
  b[6] = (b[6]! & 0x0f) | 0x70; // version 7
  b[8] = (b[8]! & 0x3f) | 0x80; // RFC 9562 variant
  const h = Array.from(b, (x) => HEX[x]!).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A version-4 UUID (used only by the `ids-not-uuidv7` defect). */
export function uuidv4(): string {
  const b = randomBytes(16);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = Array.from(b, (x) => HEX[x]!).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export const UUID_V7 = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-7[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$/;

/** 4.0: a valid client request id (1 to 128 of `[A-Za-z0-9._-]`). */
export const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

let requestCounter = 0;
const requestPrefix = randomBytes(6).toString('hex');

/** A server-generated request id, unique within the process and valid per 4.0. */
export function generateRequestId(): string {
  requestCounter = (requestCounter + 1) % 0x7fffffff;
  return `ref-${requestPrefix}-${requestCounter.toString(36)}`;
}
