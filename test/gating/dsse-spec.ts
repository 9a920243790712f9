// A second, independent reading of DSSE v1 (secure-systems-lab/dsse, protocol.md), written in the
// tests from the public specification and not from harness/gating/dsse.ts: if the product's
// encoding drifted from the specification, the envelopes it writes would stop verifying here.
// Also the test keys: generated per test run, never committed, and what of them must never appear.
import { generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** "DSSEv1" SP len(type) SP type SP len(body) SP body; lengths are decimal byte counts. */
export function specPae(payloadType: string, body: Buffer): Buffer {
  const typeBytes = Buffer.from(payloadType, 'utf8');
  const header = `DSSEv1 ${typeBytes.byteLength} ${typeBytes.toString('utf8')} ${body.byteLength} `;
  return Buffer.concat([Buffer.from(header, 'utf8'), body]);
}

/**
 * Verifies an envelope line as cosign would for these key types: Ed25519 over the encoding itself,
 * ECDSA P-256 over its SHA-256 with an ASN.1 DER signature. Returns the statement it carries.
 */
export function specVerify(line: string, publicKey: KeyObject): { verified: boolean; statement: Record<string, unknown>; envelope: Record<string, unknown> } {
  const envelope = JSON.parse(line) as { payloadType: string; payload: string; signatures: Array<{ sig: string; keyid?: string }> };
  const body = Buffer.from(envelope.payload, 'base64');
  const message = specPae(envelope.payloadType, body);
  const verified = envelope.signatures.some(({ sig }) =>
    publicKey.asymmetricKeyType === 'ed25519'
      ? verify(null, message, publicKey, Buffer.from(sig, 'base64'))
      : verify('sha256', message, { key: publicKey, dsaEncoding: 'der' }, Buffer.from(sig, 'base64')),
  );
  return { verified, statement: JSON.parse(body.toString('utf8')) as Record<string, unknown>, envelope };
}

export interface TestKeyPair {
  privateFile: string;
  publicFile: string;
  publicKey: KeyObject;
  /** Every spelling of the private key that must never reach an output or a file. */
  secretForms: string[];
  /** The same as bytes, for binary scans of written files. */
  secretBytes: Buffer[];
}

/** A fresh key pair of a kind certify signs with, written as PEM files into `dir`. */
export function testKeyPair(dir: string, kind: 'ed25519' | 'p256'): TestKeyPair {
  const { privateKey, publicKey } = kind === 'ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  const der = privateKey.export({ type: 'pkcs8', format: 'der' });
  const scalar = Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url');
  const privateFile = join(dir, `${kind}.pem`);
  const publicFile = join(dir, `${kind}.pub`);
  writeFileSync(privateFile, pem, { mode: 0o600 });
  writeFileSync(publicFile, publicKey.export({ type: 'spki', format: 'pem' }));
  const pemBody = pem.split('\n').filter((l) => l !== '' && !l.startsWith('-----'));
  return {
    privateFile,
    publicFile,
    publicKey,
    secretForms: [pem, ...pemBody, der.toString('base64'), der.toString('hex'), scalar.toString('base64url'), scalar.toString('base64'), scalar.toString('hex')],
    secretBytes: [der, scalar],
  };
}

/** The forms of the key found in a text or a file's bytes (none, when it leaked nowhere). */
export function leakedForms(key: TestKeyPair, content: string | Buffer): string[] {
  const text = typeof content === 'string' ? content : content.toString('utf8');
  const bytes = typeof content === 'string' ? Buffer.from(content) : content;
  return [
    ...key.secretForms.filter((form) => text.includes(form)),
    ...key.secretBytes.filter((b) => bytes.includes(b)).map((b) => `${b.length} raw bytes`),
  ];
}
