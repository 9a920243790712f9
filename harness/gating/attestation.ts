// certificate.intoto.jsonl: the certificate as a signed attestation in the format software supply
// chains verify (SLSA provenance, `cosign attest`): an in-toto Statement v1 whose subjects are the
// files of the certified run (reports, exchange log, certificate.json) with their SHA-256, and
// whose predicate says what was certified, in a DSSE envelope on one JSON line. Whoever holds the
// public key can tell that the files are those the key holder certified: editing a report, the
// predicate or the signature breaks it, and recomputing hashes no longer helps.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isObject } from '../../core/json.ts';
import { HarnessError } from '../errors.ts';
import type { RunResult } from '../result.ts';
import type { GatingReport } from '../gating-model.ts';
import { CERTIFICATE_FILE, REPORT_JSON, certificateContentMismatch, contentsOf, evidenceFiles, sha256Hex, type CertificateContents } from './certificate.ts';
import { asEnvelope, openEnvelope, signEnvelope } from './dsse.ts';
import type { LoadedKey } from './signing-keys.ts';

export const ATTESTATION_FILE = 'certificate.intoto.jsonl';
export const INTOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';
export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
/** This checker's predicate: a URN, as the project has no web home of its own to name. */
export const PREDICATE_TYPE = 'urn:external-integration-api-conformance:certificate:v1';
export const CERTIFIED = 'CERTIFIED';

export interface Subject {
  /** A file name beside the attestation, never a path. */
  name: string;
  digest: { sha256: string };
}

export interface CertificatePredicate extends CertificateContents {
  verdict: typeof CERTIFIED;
  issuedAt: string;
  tiers: GatingReport['tiers'];
  /** The facts the checks recorded beside their verdicts (report.json's notes). */
  notes: RunResult['notes'];
  /** The readings the target took where the document reads two ways, when the run result has them. */
  readings?: unknown;
  /**
   * The authorization matrix whole (its cells and what the target answered), when the run result
   * has one; `authorizationMatrix` is its summary, the part certificate.json carries too.
   */
  authorizationCells?: unknown;
}

export interface Statement {
  _type: typeof STATEMENT_TYPE;
  subject: Subject[];
  predicateType: typeof PREDICATE_TYPE;
  predicate: CertificatePredicate;
}

/** The files a signed certificate covers: the evidence of the run and certificate.json beside it. */
export function subjectsOf(reportDir: string): Subject[] {
  const names = [...evidenceFiles(reportDir), ...(existsSync(join(reportDir, CERTIFICATE_FILE)) ? [CERTIFICATE_FILE] : [])];
  return names.map((name) => ({ name, digest: { sha256: sha256Hex(readFileSync(join(reportDir, name))) } }));
}

export function buildStatement(result: RunResult, reportDir: string, now = new Date()): Statement {
  const tiers = result.gating?.tiers;
  if (result.gating?.certification?.certified !== true || !tiers) throw new Error('only a certified run is attested');
  // Parts of report.json that only some runs (or versions) have, copied as they stand.
  const { readings, authorizationMatrix } = result as unknown as Record<string, unknown>;
  return {
    _type: STATEMENT_TYPE,
    subject: subjectsOf(reportDir),
    predicateType: PREDICATE_TYPE,
    predicate: {
      verdict: CERTIFIED,
      issuedAt: now.toISOString(),
      ...contentsOf(result),
      tiers,
      notes: result.notes.map((n) => ({ check: n.check, text: n.text })),
      ...(readings !== undefined ? { readings } : {}),
      ...(authorizationMatrix !== undefined ? { authorizationCells: authorizationMatrix } : {}),
    },
  };
}

/** The statement as signed (what a leak scan must read: the envelope holds it in base64) and the envelope line. */
export function renderAttestation(statement: Statement, signer: LoadedKey): { statement: string; line: string } {
  const text = JSON.stringify(statement);
  const envelope = signEnvelope(INTOTO_PAYLOAD_TYPE, Buffer.from(text, 'utf8'), signer);
  return { statement: text, line: `${JSON.stringify(envelope)}\n` };
}

export type AttestationOutcome = { ok: true; lines: string[] } | { ok: false; reason: string };

const unusable = (file: string, why: string) => new HarnessError('CONF_INVALID_VALUE', `${file}: ${why}`);

/** The one envelope of an attestation file; unusable input (exit 2) when there is none. */
function readEnvelope(file: string) {
  if (!existsSync(file) || !statSync(file).isFile()) throw unusable(file, `no such attestation (run conformance certify --sign-key KEY first)`);
  const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
  if (lines.length !== 1) throw unusable(file, `holds ${lines.length} lines; an attestation of this checker is one DSSE envelope on one line`);
  let value: unknown;
  try {
    value = JSON.parse(lines[0]!);
  } catch (error) {
    throw unusable(file, `not JSON (${(error as Error).message.split('\n')[0]})`);
  }
  const envelope = asEnvelope(value);
  if (typeof envelope === 'string') throw unusable(file, `not a DSSE envelope: ${envelope}`);
  return envelope;
}

/** The first subject that is not what the statement says it is, or undefined when all are. */
function subjectMismatch(subjects: unknown, dir: string): string | undefined {
  if (!Array.isArray(subjects) || subjects.length === 0) return 'subject: the statement names no file';
  for (const [index, subject] of subjects.entries()) {
    const name: unknown = isObject(subject) ? subject.name : undefined;
    const digest: unknown = isObject(subject) && isObject(subject.digest) ? subject.digest.sha256 : undefined;
    if (typeof name !== 'string' || typeof digest !== 'string') return `subject ${index}: no name and sha256 digest`;
    // Names only, never paths: a statement cannot point the check at other files.
    if (basename(name) !== name || name === '.' || name === '..') return `subject ${JSON.stringify(name)}: a path, not a file beside the attestation`;
    const path = join(dir, name);
    if (!existsSync(path)) return `${name} is missing (the statement certifies it)`;
    const actual = sha256Hex(readFileSync(path));
    if (actual !== digest.toLowerCase()) return `${name} changed since certification (sha256 certified ${digest}, found ${actual})`;
  }
  if (!subjects.some((s) => isObject(s) && s.name === REPORT_JSON)) return `subject: the statement does not certify ${REPORT_JSON}`;
  return undefined;
}

function summaryLines(predicate: CertificatePredicate, subjects: number, verifier: LoadedKey): string[] {
  const target = predicate.target;
  const exclusions = Array.isArray(predicate.exclusions) ? predicate.exclusions.length : 0;
  return [
    `signature: ${verifier.algorithm} key sha256:${verifier.fingerprint.slice(0, 16)}; ${subjects} files unchanged; verdict ${CERTIFIED}`,
    `certified: ${target?.baseUrl} (${target?.embedded ? 'embedded reference' : 'host'}), profile ${predicate.profile}, ${predicate.allTopics ? 'every topic' : 'some topics'}, seed ${predicate.seed}, ${exclusions} exclusion${exclusions === 1 ? '' : 's'}`,
    `by: ${predicate.tool?.name} ${predicate.tool?.version}, issued ${predicate.issuedAt} (run ${predicate.run?.startedAt} to ${predicate.run?.finishedAt})`,
    `contract: version ${predicate.contract?.version}, sha256 ${predicate.contract?.sha256}`,
  ];
}

/**
 * Verifies an attestation file with a public key, in the order a reader trusts it: the signature
 * (nothing unsigned is read before it holds), the statement's types, every subject against the
 * file of that name beside it, the verdict, and that the predicate says what the signed
 * report.json says. Unusable input (no envelope, not JSON) throws; a mismatch is the first reason.
 */
export function verifyAttestation(file: string, verifier: LoadedKey): AttestationOutcome {
  const envelope = readEnvelope(file);
  const opened = openEnvelope(envelope, verifier);
  if (!opened.ok) return { ok: false, reason: `${opened.reason} (another key signed it, or the statement or signature was changed)` };
  if (envelope.payloadType !== INTOTO_PAYLOAD_TYPE) return { ok: false, reason: `payloadType: ${JSON.stringify(envelope.payloadType)}, not ${INTOTO_PAYLOAD_TYPE}` };
  let statement: unknown;
  try {
    statement = JSON.parse(opened.body.toString('utf8'));
  } catch {
    return { ok: false, reason: 'statement: the signed payload is not JSON' };
  }
  if (!isObject(statement) || statement._type !== STATEMENT_TYPE) return { ok: false, reason: `_type: not an in-toto ${STATEMENT_TYPE}` };
  if (statement.predicateType !== PREDICATE_TYPE) return { ok: false, reason: `predicateType: ${JSON.stringify(statement.predicateType)}, not ${PREDICATE_TYPE}` };
  const dir = dirname(file);
  const mismatch = subjectMismatch(statement.subject, dir);
  if (mismatch) return { ok: false, reason: mismatch };
  const predicate = statement.predicate;
  if (!isObject(predicate) || predicate.verdict !== CERTIFIED) {
    return { ok: false, reason: `predicate.verdict: ${JSON.stringify(isObject(predicate) ? predicate.verdict : undefined)}, not ${CERTIFIED}` };
  }
  let report: RunResult;
  try {
    report = JSON.parse(readFileSync(join(dir, REPORT_JSON), 'utf8')) as RunResult;
  } catch {
    return { ok: false, reason: `${REPORT_JSON} is not JSON` };
  }
  const differs = certificateContentMismatch({ ...(predicate as unknown as CertificatePredicate), certified: true }, report);
  if (differs) return { ok: false, reason: `the predicate does not say what ${REPORT_JSON} says: ${differs}` };
  return { ok: true, lines: summaryLines(predicate as unknown as CertificatePredicate, (statement.subject as unknown[]).length, verifier) };
}
