// The pieces of a signed certificate without a run: the DSSE encoding against the specification's
// own example, envelopes of both key kinds read by the tests' independent implementation, the
// strict base64 a verifier needs, and every key file certify or verify-certificate refuses, in
// messages that carry no byte of the key.
import { createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeBase64, openEnvelope, preAuthenticationEncoding, signEnvelope } from '../../harness/gating/dsse.ts';
import { readPublicKey, readSigningKey } from '../../harness/gating/signing-keys.ts';
import { HarnessError } from '../../harness/errors.ts';
import { leakedForms, specPae, specVerify, testKeyPair } from './dsse-spec.ts';

const dir = mkdtempSync(join(tmpdir(), 'gating-attestation-'));
const TYPE = 'application/vnd.in-toto+json';

/** The thrown HarnessError of a key read, or a failure when it did not throw one. */
function refusal(read: () => unknown): HarnessError {
  try {
    read();
  } catch (error) {
    if (error instanceof HarnessError) return error;
    throw error;
  }
  throw new Error('the key was accepted');
}

describe('DSSE envelopes', () => {
  it("the tests' own encoding verifies the specification's example (P-256, raw r||s), so it reads the specification right", () => {
    // protocol.md, "Test Vectors": public point of the example key, payload, type and signature.
    const coordinate = (decimal: string) => Buffer.from(BigInt(decimal).toString(16).padStart(64, '0'), 'hex').toString('base64url');
    const key = createPublicKey({
      format: 'jwk',
      key: {
        kty: 'EC',
        crv: 'P-256',
        x: coordinate('46950820868899156662930047687818585632848591499744589407958293238635476079160'),
        y: coordinate('5640078356564379163099075877009565129882514886557779369047442380624545832820'),
      },
    });
    const message = specPae('http://example.com/HelloWorld', Buffer.from('hello world'));
    expect(message.toString()).toBe('DSSEv1 29 http://example.com/HelloWorld 11 hello world');
    const sig = Buffer.from('A3JqsQGtVsJ2O2xqrI5IcnXip5GToJ3F+FnZ+O88SjtR6rDAajabZKciJTfUiHqJPcIAriEGAHTVeCUjW2JIZA==', 'base64');
    expect(verify('sha256', message, { key, dsaEncoding: 'ieee-p1363' }, sig)).toBe(true);
    // The product's encoding is byte for byte the same, multi-byte characters counted as bytes.
    for (const [type, body] of [['http://example.com/HelloWorld', 'hello world'], [TYPE, '{"ü":"€"}'], ['', '']] as const) {
      expect(preAuthenticationEncoding(type, Buffer.from(body))).toEqual(specPae(type, Buffer.from(body)));
    }
  });

  for (const kind of ['ed25519', 'p256'] as const) {
    it(`an envelope signed with ${kind} verifies with the independent encoding, and with the product's reader; another key of the kind does not`, () => {
      const pair = testKeyPair(dir, kind);
      const signer = readSigningKey(pair.privateFile);
      const body = Buffer.from(JSON.stringify({ _type: 'https://in-toto.io/Statement/v1', note: 'ü' }));
      const envelope = signEnvelope(TYPE, body, signer);
      expect(envelope.signatures).toHaveLength(1);
      expect(envelope.signatures[0]).not.toHaveProperty('keyid');
      const line = JSON.stringify(envelope);
      const read = specVerify(line, pair.publicKey);
      expect(read.verified).toBe(true);
      expect(read.statement).toEqual({ _type: 'https://in-toto.io/Statement/v1', note: 'ü' });
      if (kind === 'ed25519') expect(Buffer.from(envelope.signatures[0]!.sig, 'base64')).toHaveLength(64);
      else expect(Buffer.from(envelope.signatures[0]!.sig, 'base64')[0]).toBe(0x30); // an ASN.1 SEQUENCE

      const verifier = readPublicKey(pair.publicFile);
      expect(openEnvelope(envelope, verifier)).toEqual({ ok: true, body });
      const other = readPublicKey(testKeyPair(mkdtempSync(join(dir, 'other-')), kind).publicFile);
      expect(openEnvelope(envelope, other)).toMatchObject({ ok: false, reason: expect.stringMatching(/^signature: /) });
      expect(leakedForms(pair, line)).toEqual([]);
    });
  }

  it('a P-256 signature as raw r||s (as other DSSE signers write it) verifies too', () => {
    const pair = testKeyPair(mkdtempSync(join(dir, 'raw-')), 'p256');
    const body = Buffer.from('{}');
    // node:crypto writes P1363 on request; the verifier must accept it beside DER.
    const raw = sign('sha256', specPae(TYPE, body), { key: readSigningKey(pair.privateFile).key, dsaEncoding: 'ieee-p1363' });
    expect(raw).toHaveLength(64);
    const envelope = { payloadType: TYPE, payload: body.toString('base64'), signatures: [{ sig: raw.toString('base64url') }] };
    expect(openEnvelope(envelope, readPublicKey(pair.publicFile))).toEqual({ ok: true, body });
  });

  it('base64 is read in its one canonical spelling, standard or URL-safe, padded or not', () => {
    const bytes = Buffer.from([0xfb, 0xff, 0x01, 0x02]);
    for (const text of ['+/8BAg==', '-_8BAg==', '+/8BAg', '-_8BAg']) expect(decodeBase64(text)).toEqual(bytes);
    // Unused bits set in the last character, a stray character, a space: all decode with
    // Buffer.from to the same bytes, and all are refused.
    for (const text of ['+/8BAh==', '+/8B*Ag==', '+/8B Ag==', '+/8BAg===']) expect(decodeBase64(text), text).toBeUndefined();
  });
});

describe('signing and public keys', () => {
  it('accepts Ed25519 and P-256 (PKCS#8, and SEC1 for P-256), naming each by its algorithm and a fingerprint', () => {
    const ed = testKeyPair(mkdtempSync(join(dir, 'ok-')), 'ed25519');
    const ec = testKeyPair(mkdtempSync(join(dir, 'ok-')), 'p256');
    expect(readSigningKey(ed.privateFile)).toMatchObject({ algorithm: 'ed25519', fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(readSigningKey(ec.privateFile).algorithm).toBe('ecdsa-p256');
    expect(readPublicKey(ec.publicFile).fingerprint).toBe(readSigningKey(ec.privateFile).fingerprint);
    const sec1 = join(dir, 'sec1.pem');
    writeFileSync(sec1, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'sec1', format: 'pem' }));
    expect(readSigningKey(sec1).algorithm).toBe('ecdsa-p256');
  });

  it('refuses every other key file with one line naming the file and what is wrong, and never a byte of the key', () => {
    const keys = mkdtempSync(join(dir, 'refused-'));
    const ed = testKeyPair(keys, 'ed25519');
    const write = (name: string, content: string | Buffer) => {
      const file = join(keys, name);
      writeFileSync(file, content);
      return file;
    };
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const encrypted = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'canary-passphrase' });
    const canary = 'CANARY-NOT-A-KEY-0f3a9c';
    const cases: Array<[string, () => unknown, RegExp]> = [
      ['missing', () => readSigningKey(join(keys, 'none.pem')), /--sign-key .*none\.pem: no such key file$/],
      ['a folder', () => readSigningKey(keys), /no such key file$/],
      ['garbage', () => readSigningKey(write('garbage.pem', `${canary}\n`)), /not a PEM private key/],
      ['a public key to sign', () => readSigningKey(ed.publicFile), /not a PEM private key/],
      ['P-384', () => readSigningKey(write('p384.pem', p384.privateKey.export({ type: 'pkcs8', format: 'pem' }))), /the key is ec secp384r1; certificates are signed with an Ed25519 or ECDSA P-256 key$/],
      ['RSA', () => readSigningKey(write('rsa.pem', rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }))), /the key is rsa;/],
      ['encrypted', () => readSigningKey(write('encrypted.pem', encrypted)), /the key is encrypted/],
      ['a private key to verify', () => readPublicKey(ed.privateFile), /--public-key .*: a private key; give its public key/],
      ['an encrypted key to verify', () => readPublicKey(join(keys, 'encrypted.pem')), /a private key/],
      ['garbage to verify', () => readPublicKey(join(keys, 'garbage.pem')), /--public-key .*: not a PEM public key/],
      ['RSA to verify', () => readPublicKey(write('rsa.pub', rsa.publicKey.export({ type: 'spki', format: 'pem' }))), /the key is rsa;/],
    ];
    for (const [label, read, message] of cases) {
      const error = refusal(read);
      expect(error.code, label).toBe('CONF_INVALID_VALUE');
      expect(error.message, label).toMatch(message);
      expect(error.message.split('\n'), label).toHaveLength(1);
      expect(error.message, label).not.toContain(canary);
      expect(error.message, label).not.toContain('canary-passphrase');
      expect(leakedForms(ed, error.message), label).toEqual([]);
    }
  });
});
