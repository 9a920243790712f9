// The keys of signed certificates: a PEM private key for `certify --sign-key` and a PEM public key
// for `verify-certificate --public-key`, Ed25519 or ECDSA P-256 (the two that cosign verifies and
// node:crypto signs without any other library). Each file is read once; its text never reaches a
// message, and the buffer holding it is zeroed once parsed. Refusals are HarnessErrors (exit 2).
import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { HarnessError } from '../errors.ts';

export type SigningAlgorithm = 'ed25519' | 'ecdsa-p256';

export interface LoadedKey {
  key: KeyObject;
  algorithm: SigningAlgorithm;
  /** sha256 (hex) of the public key's SubjectPublicKeyInfo: names the key pair, reveals nothing. */
  fingerprint: string;
}

const SUPPORTED = 'an Ed25519 or ECDSA P-256 key';

function readKeyFile(file: string, flag: string): Buffer {
  try {
    if (!statSync(file).isFile()) throw new Error('not a file');
    return readFileSync(file);
  } catch {
    throw new HarnessError('CONF_INVALID_VALUE', `${flag} ${file}: no such key file`);
  }
}

function algorithmOf(key: KeyObject): SigningAlgorithm | undefined {
  if (key.asymmetricKeyType === 'ed25519') return 'ed25519';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ecdsa-p256';
  return undefined;
}

/** What kind of key it is, for a refusal: `rsa`, `ec secp384r1`, ... (never a byte of the key). */
function kindOf(key: KeyObject): string {
  const curve = key.asymmetricKeyDetails?.namedCurve;
  return `${key.asymmetricKeyType ?? 'unknown'}${curve ? ` ${curve}` : ''}`;
}

export function fingerprintOf(publicKey: KeyObject): string {
  return createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('hex');
}

function parsed(bytes: Buffer, parse: (pem: Buffer) => KeyObject): KeyObject | undefined {
  try {
    return parse(bytes);
  } catch {
    return undefined;
  }
}

/** PKCS#8 `ENCRYPTED PRIVATE KEY`, or a traditional PEM with `Proc-Type: 4,ENCRYPTED`. */
function isEncrypted(bytes: Buffer): boolean {
  return bytes.includes('-----BEGIN ENCRYPTED') || bytes.includes('Proc-Type: 4,ENCRYPTED');
}

/** `certify --sign-key FILE`: an unencrypted PEM private key (PKCS#8, or SEC1 for P-256). */
export function readSigningKey(file: string): LoadedKey {
  const bytes = readKeyFile(file, '--sign-key');
  try {
    if (isEncrypted(bytes)) {
      throw new HarnessError('CONF_INVALID_VALUE', `--sign-key ${file}: the key is encrypted; give ${SUPPORTED} as unencrypted PEM (openssl pkey -in KEY -out PLAIN.pem), kept in a secret store`);
    }
    const key = parsed(bytes, (pem) => createPrivateKey({ key: pem, format: 'pem' }));
    if (!key) throw new HarnessError('CONF_INVALID_VALUE', `--sign-key ${file}: not a PEM private key (${SUPPORTED}: openssl genpkey -algorithm ed25519 -out KEY)`);
    const algorithm = algorithmOf(key);
    if (!algorithm) throw new HarnessError('CONF_INVALID_VALUE', `--sign-key ${file}: the key is ${kindOf(key)}; certificates are signed with ${SUPPORTED}`);
    return { key, algorithm, fingerprint: fingerprintOf(createPublicKey(key)) };
  } finally {
    bytes.fill(0);
  }
}

/** `verify-certificate --public-key FILE`: a PEM public key (or an X.509 certificate holding one). */
export function readPublicKey(file: string): LoadedKey {
  const bytes = readKeyFile(file, '--public-key');
  try {
    // A private key would verify too, but it has no business beside a certificate anyone checks.
    if (isEncrypted(bytes) || parsed(bytes, (pem) => createPrivateKey({ key: pem, format: 'pem' }))) {
      throw new HarnessError('CONF_INVALID_VALUE', `--public-key ${file}: a private key; give its public key (openssl pkey -in KEY -pubout -out KEY.pub)`);
    }
    const key = parsed(bytes, (pem) => createPublicKey({ key: pem, format: 'pem' }));
    if (!key) throw new HarnessError('CONF_INVALID_VALUE', `--public-key ${file}: not a PEM public key (${SUPPORTED})`);
    const algorithm = algorithmOf(key);
    if (!algorithm) throw new HarnessError('CONF_INVALID_VALUE', `--public-key ${file}: the key is ${kindOf(key)}; certificates are signed with ${SUPPORTED}`);
    return { key, algorithm, fingerprint: fingerprintOf(key) };
  } finally {
    bytes.fill(0);
  }
}
