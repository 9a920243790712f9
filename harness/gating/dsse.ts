// DSSE, the Dead Simple Signing Envelope (secure-systems-lab/dsse, protocol v1): the signature
// covers the pre-authentication encoding of the payload type and the payload bytes, and the JSON
// envelope carries both, base64-encoded, beside the signatures. The algorithms are those cosign
// verifies: Ed25519 signs the encoding itself (64 bytes); ECDSA P-256 signs its SHA-256, as an
// ASN.1 DER signature (a raw r||s of 64 bytes, which other DSSE tools write, verifies too).
// No keyid is written: it is an optional hint, and a verifier that derives its own key id (the
// Go DSSE library behind cosign does) skips a signature whose hint differs from it.
import { sign, verify, type KeyObject } from 'node:crypto';
import { isObject } from '../../core/json.ts';
import type { LoadedKey } from './signing-keys.ts';

export interface DsseSignature {
  keyid?: string;
  sig: string;
}

export interface DsseEnvelope {
  payloadType: string;
  /** base64 of the serialized body. */
  payload: string;
  signatures: DsseSignature[];
}

/** PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body, lengths in bytes. */
export function preAuthenticationEncoding(payloadType: string, body: Buffer): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `), type, Buffer.from(` ${body.length} `), body]);
}

export function signEnvelope(payloadType: string, body: Buffer, signer: LoadedKey): DsseEnvelope {
  const message = preAuthenticationEncoding(payloadType, body);
  const signature =
    signer.algorithm === 'ed25519' ? sign(null, message, signer.key) : sign('sha256', message, { key: signer.key, dsaEncoding: 'der' });
  return { payloadType, payload: body.toString('base64'), signatures: [{ sig: signature.toString('base64') }] };
}

/**
 * Base64, standard or URL-safe, padded or not (DSSE lets signers use either), and only in its one
 * canonical spelling: Buffer.from would skip stray characters and ignore the unused bits of the
 * last one, so an edited signature or payload could still decode to the signed bytes.
 */
export function decodeBase64(text: string): Buffer | undefined {
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(text)) return undefined;
  const standard = text.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  const bytes = Buffer.from(standard, 'base64');
  return bytes.toString('base64').replace(/=+$/, '') === standard ? bytes : undefined;
}

function verifies(message: Buffer, signature: Buffer, verifier: LoadedKey): boolean {
  const key: KeyObject = verifier.key;
  if (verifier.algorithm === 'ed25519') return verify(null, message, key, signature);
  if (verify('sha256', message, { key, dsaEncoding: 'der' }, signature)) return true;
  return signature.length === 64 && verify('sha256', message, { key, dsaEncoding: 'ieee-p1363' }, signature);
}

export type EnvelopeCheck = { ok: true; body: Buffer } | { ok: false; reason: string };

/** The signed body, when a signature of the envelope verifies with the key; else why not. */
export function openEnvelope(envelope: DsseEnvelope, verifier: LoadedKey): EnvelopeCheck {
  const body = decodeBase64(envelope.payload);
  if (!body) return { ok: false, reason: 'payload: not base64' };
  const message = preAuthenticationEncoding(envelope.payloadType, body);
  for (const { sig } of envelope.signatures) {
    const signature = decodeBase64(sig);
    if (signature && verifies(message, signature, verifier)) return { ok: true, body };
  }
  return { ok: false, reason: 'signature: not made by this key over this payload' };
}

/** The envelope of a parsed JSON value, or what it lacks. */
export function asEnvelope(value: unknown): DsseEnvelope | string {
  if (!isObject(value)) return 'not a JSON object';
  if (typeof value.payloadType !== 'string') return 'no payloadType';
  if (typeof value.payload !== 'string') return 'no payload';
  const signatures = value.signatures;
  if (!Array.isArray(signatures) || signatures.length === 0) return 'no signatures';
  if (!signatures.every((s) => isObject(s) && typeof s.sig === 'string')) return 'a signature without its sig';
  return { payloadType: value.payloadType, payload: value.payload, signatures: signatures as DsseSignature[] };
}
