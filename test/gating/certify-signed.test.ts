// A signed certificate of a sandbox, end to end as its users make and check it: the reference
// started by `conformance serve`, certified as an ordinary host through the env file serve wrote
// (no control origin, a fresh random seed, printed), signed with a key generated here; then the
// attestation read by the tests' own DSSE implementation, verified by the CLI from a copy of the
// folder elsewhere, and refused, in one line each, for every kind of tampering, with both kinds of
// key. No form of the private key may reach an output or a file.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomInt } from 'node:crypto';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTESTATION_FILE, PREDICATE_TYPE, buildStatement, renderAttestation, verifyAttestation, type Statement } from '../../harness/gating/attestation.ts';
import type { RunResult } from '../../harness/result.ts';
import { readPublicKey, readSigningKey } from '../../harness/gating/signing-keys.ts';
import { ROOT, cli, hasStackTrace, type Finished } from '../harness/fixtures/spawn.ts';
import { leakedForms, specVerify, testKeyPair, type TestKeyPair } from './dsse-spec.ts';

const SEED = randomInt(1, 2 ** 31 - 1);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** `conformance serve --env-out F` in a child process, once F is written. */
async function serve(envFile: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [`${ROOT}bin/conformance.mjs`, 'serve', '--env-out', envFile], { env: { PATH: process.env.PATH ?? '' } });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const deadline = Date.now() + 30_000;
  while (!(existsSync(envFile) && readFileSync(envFile, 'utf8').includes('CONFORMANCE_CLIENT_SECRET='))) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`serve wrote no env file: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return child;
}

/** A copy of the certified folder, changed by `change`, for one tampering. */
function tampered(from: string, into: string, change: (dir: string) => void): string {
  rmSync(into, { recursive: true, force: true });
  cpSync(from, into, { recursive: true });
  change(into);
  return join(into, ATTESTATION_FILE);
}

const flipByte = (file: string, at = 0.5) => {
  const bytes = readFileSync(file);
  const index = Math.floor(bytes.length * at);
  bytes[index] = bytes[index]! ^ 0x01;
  writeFileSync(file, bytes);
};

type Envelope = { payloadType: string; payload: string; signatures: Array<{ sig: string }> };
const editEnvelope = (file: string, edit: (e: Envelope) => void) => {
  const envelope = JSON.parse(readFileSync(file, 'utf8')) as Envelope;
  edit(envelope);
  writeFileSync(file, `${JSON.stringify(envelope)}\n`);
};

describe(`a signed certificate of a host served by conformance serve (seed ${SEED})`, { timeout: 300_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'gating-certify-signed-'));
  const certDir = join(dir, 'certified');
  const envFile = join(dir, 'host.env');
  let server: ChildProcess;
  let ed: TestKeyPair;
  let certified: Finished;

  beforeAll(async () => {
    console.info(`certify-signed: seed ${SEED}`);
    mkdirSync(join(dir, 'keys'));
    ed = testKeyPair(join(dir, 'keys'), 'ed25519');
    server = await serve(envFile);
    // The served reference is a sandbox: declared, so the cross-business DELETE is sent, not a precondition.
    appendFileSync(envFile, 'CONFORMANCE_SANDBOX=true\n');
    certified = await cli(['certify', '--env-file', envFile, '--sign-key', ed.privateFile, '--seed', String(SEED), '--runs', '2', '--report-dir', certDir]);
  }, 240_000);
  afterAll(() => {
    server?.kill('SIGTERM');
  });

  it('certify signs: the envelope verifies with the independent DSSE encoding, and its statement names every file beside it', () => {
    expect(certified.stderr).toBe('');
    expect(certified.code).toBe(0);
    expect(certified.stdout).toMatch(new RegExp(`signed \\(ed25519 key sha256:[0-9a-f]{16}\\): .*${ATTESTATION_FILE}`));
    const line = readFileSync(join(certDir, ATTESTATION_FILE), 'utf8');
    expect(line.endsWith('\n') && line.trim().split('\n').length === 1).toBe(true);
    const { verified, statement, envelope } = specVerify(line, ed.publicKey);
    expect(verified).toBe(true);
    expect(envelope.payloadType).toBe('application/vnd.in-toto+json');
    const s = statement as unknown as Statement;
    expect(s._type).toBe('https://in-toto.io/Statement/v1');
    expect(s.predicateType).toBe(PREDICATE_TYPE);
    const names = s.subject.map((x) => x.name);
    expect(names).toEqual(['report.json', 'report.md', 'report.html', 'junit.xml', 'exchanges.jsonl', 'certificate.json']);
    for (const subject of s.subject) expect(subject.digest.sha256, subject.name).toBe(sha256(readFileSync(join(certDir, subject.name))));
    const baseUrl = readFileSync(envFile, 'utf8').match(/^CONFORMANCE_BASE_URL=(.*)$/m)![1];
    const certificate = JSON.parse(readFileSync(join(certDir, 'certificate.json'), 'utf8')) as { exclusions: unknown[]; contract: unknown };
    expect(s.predicate).toMatchObject({ verdict: 'CERTIFIED', seed: SEED, profile: 'full', allTopics: true, target: { baseUrl, embedded: false } });
    expect(s.predicate.exclusions).toEqual(certificate.exclusions);
    expect(s.predicate.exclusions.length).toBeGreaterThan(0);
    expect(s.predicate.contract).toEqual(certificate.contract);
    expect(s.predicate.tiers.must.failed).toBe(0);
    expect(Date.parse(s.predicate.issuedAt)).not.toBeNaN();
    // The parts only some run results have are the report's own, or absent with it.
    const report = JSON.parse(readFileSync(join(certDir, 'report.json'), 'utf8')) as Record<string, unknown>;
    expect(s.predicate.notes).toEqual(report.notes);
    expect(s.predicate.readings).toEqual(report.readings);
    expect(s.predicate.authorizationCells).toEqual(report.authorizationMatrix);
  });

  it('the predicate copies the authorization matrix and the readings of a run result that has them, and names neither otherwise', () => {
    const { authorizationMatrix: _m, readings: _r, ...report } = JSON.parse(readFileSync(join(certDir, 'report.json'), 'utf8')) as RunResult & Record<string, unknown>;
    const without = buildStatement(report as unknown as RunResult, certDir).predicate;
    expect(without).not.toHaveProperty('authorizationMatrix');
    expect(without).not.toHaveProperty('authorizationCells');
    expect(without).not.toHaveProperty('readings');
    const matrix = { operations: ['getWallet'], columns: [{ caller: 'other-tenant' }], cells: [{ operation: 'getWallet', caller: 'other-tenant', status: 404, verdict: 'pass' }] };
    const readings = [{ point: 'page-size-clamped', answer: 'clamped', grade: 'reading' }];
    const withThem = buildStatement({ ...report, authorizationMatrix: matrix, readings } as unknown as RunResult, certDir).predicate;
    expect(withThem.authorizationCells).toEqual(matrix);
    expect(withThem.authorizationMatrix).toEqual({ operations: ['getWallet'], callers: ['other-tenant'], cells: 1, verdicts: { pass: 1 } });
    expect(withThem.readings).toEqual(readings);
  });

  it('verify-certificate --public-key verifies a copy of the folder from another working directory, in a few lines', async () => {
    const copy = join(mkdtempSync(join(tmpdir(), 'gating-fresh-clone-')), 'certificate');
    cpSync(certDir, copy, { recursive: true });
    const verified = await cli(['verify-certificate', '--public-key', ed.publicFile, copy], {}, tmpdir());
    expect(verified.stderr).toBe('');
    expect(verified.code).toBe(0);
    const lines = verified.stdout.trim().split('\n');
    expect(lines.length).toBeLessThanOrEqual(5);
    expect(verified.stdout).toMatch(/signature: ed25519 key sha256:[0-9a-f]{16}; 6 files unchanged; verdict CERTIFIED/);
    expect(verified.stdout).toMatch(new RegExp(`certified: http://127\\.0\\.0\\.1:\\d+ \\(host\\), profile full, every topic, seed ${SEED}, \\d+ exclusions`));
    expect(verified.stdout).toMatch(/by: external-integration-api-conformance \d+\.\d+\.\d+, issued \d{4}-/);
    expect(verified.stdout).toMatch(/contract: version \S+, sha256 [0-9a-f]{64}/);
    // The attestation file itself may be named instead of its folder.
    expect((await cli(['verify-certificate', '--public-key', ed.publicFile, join(copy, ATTESTATION_FILE)])).code).toBe(0);
    // The unsigned certificate beside it still verifies as before.
    expect((await cli(['verify-certificate', copy])).code).toBe(0);
  });

  for (const kind of ['ed25519', 'p256'] as const) {
    it(`every tampering is refused with the first mismatch in one reason (${kind})`, () => {
      const base = join(dir, `signed-${kind}`);
      rmSync(base, { recursive: true, force: true });
      cpSync(certDir, base, { recursive: true });
      let pair = ed;
      if (kind === 'p256') {
        // The same statement, signed with a P-256 key through the product's signing.
        pair = testKeyPair(join(dir, 'keys'), 'p256');
        const statement = specVerify(readFileSync(join(certDir, ATTESTATION_FILE), 'utf8'), ed.publicKey).statement as unknown as Statement;
        writeFileSync(join(base, ATTESTATION_FILE), renderAttestation(statement, readSigningKey(pair.privateFile)).line);
        expect(specVerify(readFileSync(join(base, ATTESTATION_FILE), 'utf8'), pair.publicKey).verified).toBe(true);
      }
      const key = readPublicKey(pair.publicFile);
      expect(verifyAttestation(join(base, ATTESTATION_FILE), key)).toMatchObject({ ok: true });
      const refusedFor = (name: string, change: (d: string) => void, verifier = key) => {
        const outcome = verifyAttestation(tampered(base, join(dir, `t-${kind}-${name}`), change), verifier);
        expect(outcome.ok, name).toBe(false);
        const reason = outcome.ok ? '' : outcome.reason;
        expect(reason.split('\n'), name).toHaveLength(1);
        return reason;
      };
      // A byte changed in each file the statement certifies, or the file removed.
      const subjects = ['report.json', 'report.md', 'report.html', 'junit.xml', 'exchanges.jsonl', 'certificate.json'];
      for (const name of subjects) {
        expect(refusedFor(`changed-${name}`, (d) => flipByte(join(d, name))), name).toMatch(new RegExp(`^${name.replace('.', '\\.')} changed since certification \\(sha256 certified [0-9a-f]{64}, found [0-9a-f]{64}\\)$`));
        expect(refusedFor(`missing-${name}`, (d) => rmSync(join(d, name))), name).toBe(`${name} is missing (the statement certifies it)`);
      }
      const signature = /^signature: not made by this key over this payload/;
      // The predicate edited (the seed, then the verdict of a requirement), and one byte of the payload.
      const editPredicate = (edit: (s: Statement) => void) => (d: string) =>
        editEnvelope(join(d, ATTESTATION_FILE), (e) => {
          const statement = JSON.parse(Buffer.from(e.payload, 'base64').toString('utf8')) as Statement;
          edit(statement);
          e.payload = Buffer.from(JSON.stringify(statement)).toString('base64');
        });
      expect(refusedFor('predicate-seed', editPredicate((s) => void (s.predicate.seed += 1)))).toMatch(signature);
      expect(refusedFor('predicate-exclusions', editPredicate((s) => void s.predicate.exclusions.pop()))).toMatch(signature);
      expect(refusedFor('subject-digest', editPredicate((s) => void (s.subject[0]!.digest.sha256 = '0'.repeat(64))))).toMatch(signature);
      const payloadByte = (d: string) =>
        editEnvelope(join(d, ATTESTATION_FILE), (e) => {
          const body = Buffer.from(e.payload, 'base64');
          body[body.length >> 1] ^= 0x01;
          e.payload = body.toString('base64');
        });
      expect(refusedFor('payload-byte', payloadByte)).toMatch(signature);
      expect(refusedFor('payload-type', (d) => editEnvelope(join(d, ATTESTATION_FILE), (e) => void (e.payloadType = 'application/json')))).toMatch(signature);
      // A byte of the signature changed (first, middle, last), and a character of its base64.
      for (const at of [0, 0.5, 0.999]) {
        const sigByte = (d: string) =>
          editEnvelope(join(d, ATTESTATION_FILE), (e) => {
            const sig = Buffer.from(e.signatures[0]!.sig, 'base64');
            sig[Math.floor(sig.length * at)] ^= 0x01;
            e.signatures[0]!.sig = sig.toString('base64');
          });
        expect(refusedFor(`signature-byte-${at}`, sigByte)).toMatch(signature);
      }
      const sigText = (d: string) =>
        editEnvelope(join(d, ATTESTATION_FILE), (e) => {
          const s = e.signatures[0]!.sig;
          const i = s.length - 3; // the last character before the padding: changes only unused bits, or the last byte
          e.signatures[0]!.sig = `${s.slice(0, i)}${s[i] === 'A' ? 'B' : 'A'}${s.slice(i + 1)}`;
        });
      expect(refusedFor('signature-text', sigText)).toMatch(signature);
      // Another key of the same kind.
      const other = readPublicKey(testKeyPair(mkdtempSync(join(dir, 'other-')), kind).publicFile);
      expect(refusedFor('other-key', () => undefined, other)).toMatch(signature);
    });
  }

  it('through the CLI: a changed report, an edited predicate, a wrong key exit 1 with one line; unusable input exits 2 with one line; no stack', async () => {
    const other = testKeyPair(mkdtempSync(join(dir, 'cli-other-')), 'ed25519');
    const badKey = join(dir, 'keys', 'bad.pub');
    writeFileSync(badKey, 'not a key\n');
    const cases: Array<[string, string, string, number, RegExp]> = [
      ['changed report', tampered(certDir, join(dir, 'cli-report'), (d) => flipByte(join(d, 'report.json'))), ed.publicFile, 1, /does not verify: report\.json changed since certification/],
      [
        'edited predicate',
        tampered(certDir, join(dir, 'cli-predicate'), (d) =>
          editEnvelope(join(d, ATTESTATION_FILE), (e) => void (e.payload = Buffer.from(Buffer.from(e.payload, 'base64').toString().replace('"CERTIFIED"', '"certified"')).toString('base64'))),
        ),
        ed.publicFile,
        1,
        /does not verify: signature: not made by this key over this payload/,
      ],
      ['wrong key', join(certDir, ATTESTATION_FILE), other.publicFile, 1, /does not verify: signature: not made by this key/],
      ['missing file', tampered(certDir, join(dir, 'cli-missing'), (d) => rmSync(join(d, 'exchanges.jsonl'))), ed.publicFile, 1, /does not verify: exchanges\.jsonl is missing/],
      ['bad key file', join(certDir, ATTESTATION_FILE), badKey, 2, /--public-key .*bad\.pub: not a PEM public key .*\[CONF_INVALID_VALUE\]\n$/],
      ['private key to verify', join(certDir, ATTESTATION_FILE), ed.privateFile, 2, /: a private key; give its public key/],
      ['no envelope', tampered(certDir, join(dir, 'cli-none'), (d) => rmSync(join(d, ATTESTATION_FILE))), ed.publicFile, 2, /no such attestation/],
      [
        'malformed JSON',
        tampered(certDir, join(dir, 'cli-malformed'), (d) => writeFileSync(join(d, ATTESTATION_FILE), readFileSync(join(d, ATTESTATION_FILE), 'utf8').slice(0, 200))),
        ed.publicFile,
        2,
        /: not JSON \(/,
      ],
      ['not an envelope', tampered(certDir, join(dir, 'cli-shape'), (d) => writeFileSync(join(d, ATTESTATION_FILE), '{"payload":"e30="}\n')), ed.publicFile, 2, /not a DSSE envelope: no payloadType/],
    ];
    for (const [label, file, key, code, message] of cases) {
      const result = await cli(['verify-certificate', '--public-key', key, file]);
      expect(result.code, label).toBe(code);
      expect(result.stdout, label).toBe('');
      expect(result.stderr.trim().split('\n'), label).toHaveLength(1);
      expect(result.stderr, label).toMatch(message);
      expect(hasStackTrace(result.stderr), label).toBe(false);
      expect(leakedForms(ed, result.stderr), label).toEqual([]);
    }
  });

  it('certify refuses an unusable signing key before it sends a request, and a refused run leaves no attestation behind', async () => {
    const publicAsPrivate = await cli(['certify', '--env-file', envFile, '--sign-key', ed.publicFile, '--report-dir', join(dir, 'no-run')]);
    expect(publicAsPrivate.code).toBe(2);
    expect(publicAsPrivate.stdout).toBe('');
    expect(publicAsPrivate.stderr).toMatch(/^conformance: --sign-key .*ed25519\.pub: not a PEM private key .*\[CONF_INVALID_VALUE\]\n$/);
    expect(existsSync(join(dir, 'no-run'))).toBe(false);

    const partialDir = join(dir, 'partial');
    cpSync(certDir, partialDir, { recursive: true });
    const partial = await cli(['certify', '--env-file', envFile, '--sign-key', ed.privateFile, '--topic', 'wallet', '--seed', String(SEED), '--runs', '2', '--report-dir', partialDir]);
    expect(partial.code).toBe(1);
    expect(existsSync(join(partialDir, ATTESTATION_FILE))).toBe(false);
    expect(existsSync(join(partialDir, 'certificate.json'))).toBe(false);
    for (const output of [partial.stdout, partial.stderr, publicAsPrivate.stderr]) expect(leakedForms(ed, output)).toEqual([]);
  });

  it('no form of the private key reaches the output of certify or any file it wrote', () => {
    expect(leakedForms(ed, certified.stdout)).toEqual([]);
    expect(leakedForms(ed, certified.stderr)).toEqual([]);
    for (const name of readdirSync(certDir)) expect(leakedForms(ed, readFileSync(join(certDir, name))), name).toEqual([]);
    const statement = Buffer.from((JSON.parse(readFileSync(join(certDir, ATTESTATION_FILE), 'utf8')) as Envelope).payload, 'base64');
    expect(leakedForms(ed, statement)).toEqual([]);
  });
});

