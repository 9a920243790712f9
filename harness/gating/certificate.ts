// certificate.json: what a certified run checked (target, tool, contract, profile, seed, time, the
// verdict of every requirement, the must checks excluded as not observable on the target) and the
// sha256 of each report file written beside it, so that `conformance verify-certificate` can tell
// whether any report was changed afterwards, and whether the certificate still says what the
// hashed report.json says. It is a checksum bundle, not a signature: whoever can rewrite the files
// can rewrite it too (`certify --sign-key` signs it, harness/gating/attestation.ts).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { HarnessError } from '../errors.ts';
import { TOPICS } from '../../core/model.ts';
import type { RunResult } from '../result.ts';
import { REPORT_FILES } from '../reports/index.ts';
import type { CertificationExclusion } from '../gating-model.ts';

export const CERTIFICATE_FILE = 'certificate.json';
/** 2: exclusions, and the contents checked against report.json on verification. */
export const CERTIFICATE_VERSION = 2;
export const REPORT_JSON = 'report.json';
const EXCHANGE_LOG_FILE = 'exchanges.jsonl';

export interface Certificate {
  certificateVersion: typeof CERTIFICATE_VERSION;
  certified: true;
  issuedAt: string;
  tool: RunResult['tool'];
  contract: RunResult['contract'];
  target: RunResult['target'];
  profile: RunResult['profile'];
  seed: number;
  runs: number;
  run: { startedAt: string; finishedAt: string };
  /** Topics the run covered, and whether that was every topic (always: a partial run is refused). */
  topics: string[];
  allTopics: boolean;
  requirements: Array<{ id: string; level: string; status: string }>;
  /**
   * Must checks skipped as not observable on the target (control origin, unforceable fault, safety
   * rule): the certificate does not cover their requirements. Empty on the embedded reference.
   */
  exclusions: CertificationExclusion[];
  /** The authorization matrix the run judged (report.json's `authorizationMatrix`), counted. */
  authorizationMatrix?: { operations: string[]; callers: string[]; cells: number; verdicts: Record<string, number> };
  /** sha256 (hex) of each report file, by file name, relative to the certificate's folder. */
  reports: Record<string, string>;
}

export function sha256Hex(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export type CertificateContents = Omit<Certificate, 'certificateVersion' | 'certified' | 'issuedAt' | 'reports'>;

/**
 * What certificate.json must say, field by field, for a given report.json (all but issuedAt and
 * hashes); the signed statement's predicate says it too (harness/gating/attestation.ts).
 */
export function contentsOf(result: RunResult): CertificateContents {
  return {
    tool: result.tool,
    contract: result.contract,
    target: result.target,
    profile: result.profile,
    seed: result.seed,
    runs: result.runs,
    run: { startedAt: result.startedAt, finishedAt: result.finishedAt },
    topics: result.topics.map((t) => t.id),
    allTopics: TOPICS.every((t) => result.topics.some((x) => x.id === t)),
    requirements: result.requirements.map((r) => ({ id: r.id, level: r.level, status: r.status })),
    exclusions: (result.gating?.certification?.exclusions ?? []).map((e) => ({ check: e.check, requirements: [...e.requirements], reason: e.reason })),
    ...(result.authorizationMatrix ? { authorizationMatrix: matrixSummaryOf(result.authorizationMatrix) } : {}),
  };
}

/** The report files of a run, and its exchange log, which is evidence too when the run left one beside them. */
export function evidenceFiles(reportDir: string): string[] {
  return [...REPORT_FILES, ...(existsSync(join(reportDir, EXCHANGE_LOG_FILE)) ? [EXCHANGE_LOG_FILE] : [])];
}

function matrixSummaryOf(matrix: NonNullable<RunResult['authorizationMatrix']>): NonNullable<Certificate['authorizationMatrix']> {
  const verdicts: Record<string, number> = {};
  for (const cell of matrix.cells) verdicts[cell.verdict] = (verdicts[cell.verdict] ?? 0) + 1;
  return { operations: [...matrix.operations], callers: [...new Set(matrix.columns.map((c) => c.caller))], cells: matrix.cells.length, verdicts };
}

export function buildCertificate(result: RunResult, reportDir: string, now = new Date()): Certificate {
  const reports: Record<string, string> = {};
  for (const name of evidenceFiles(reportDir)) reports[name] = sha256Hex(readFileSync(join(reportDir, name)));
  return {
    certificateVersion: CERTIFICATE_VERSION,
    certified: true,
    issuedAt: now.toISOString(),
    ...contentsOf(result),
    reports,
  };
}

export function renderCertificate(certificate: Certificate): string {
  return `${JSON.stringify(certificate, null, 2)}\n`;
}

export interface VerifyOutcome {
  ok: boolean;
  /** One line per report file: `ok`, `CHANGED` or `MISSING`. */
  lines: string[];
  mismatched: string[];
  /**
   * Where the certificate's own contents part from the hashed report.json, in one line naming the
   * field (`target.baseUrl: ...`); absent when they agree (or report.json itself changed).
   */
  contentMismatch?: string;
}

const shown = (value: unknown): string => {
  const text = value === undefined ? 'nothing' : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The label of an array entry in a field path: its id (requirements) or check (exclusions), else its index. */
function entryLabel(entry: unknown, index: number): string {
  if (isRecord(entry) && typeof entry.id === 'string') return entry.id;
  if (isRecord(entry) && typeof entry.check === 'string') return entry.check;
  return String(index);
}

/** The first field where `found` (the certificate) parts from `expected` (report.json), with both values. */
export function firstDifference(found: unknown, expected: unknown, path: string): string | undefined {
  if (Array.isArray(found) && Array.isArray(expected)) {
    for (let i = 0; i < Math.max(found.length, expected.length); i++) {
      const label = entryLabel(expected[i] ?? found[i], i);
      if (i >= found.length || i >= expected.length) {
        return `${path}: the certificate has ${found.length} entries, report.json ${expected.length} (first differing: ${label})`;
      }
      const diff = firstDifference(found[i], expected[i], `${path}[${label}]`);
      if (diff) return diff;
    }
    return undefined;
  }
  if (isRecord(found) && isRecord(expected)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(found)])];
    for (const key of keys) {
      const diff = firstDifference(found[key], expected[key], `${path}.${key}`);
      if (diff) return diff;
    }
    return undefined;
  }
  if (found === expected) return undefined;
  return `${path}: the certificate says ${shown(found)}, report.json says ${shown(expected)}`;
}

/** Whether the certificate says what its report.json says: the first field that differs, or undefined. */
export function certificateContentMismatch(certificate: Partial<Certificate>, report: RunResult): string | undefined {
  if (certificate.certified !== true) return `certified: the certificate says ${shown(certificate.certified)}, not true`;
  const certification = report.gating?.certification;
  if (certification?.certified !== true) return `certified: report.json records ${certification ? 'a refused certification' : 'no certification'}`;
  const expected = contentsOf(report);
  for (const [key, value] of Object.entries(expected)) {
    const diff = firstDifference((certificate as Record<string, unknown>)[key], value, key);
    if (diff) return diff;
  }
  return undefined;
}

/**
 * Recomputes the sha256 of every report file the certificate names, then checks that the
 * certificate's contents (target, tool, contract, profile, seed, topics, requirement verdicts,
 * exclusions, ...) are those of the hashed report.json.
 */
export function verifyCertificate(file: string): VerifyOutcome {
  if (!existsSync(file)) throw new HarnessError('CONF_INVALID_VALUE', `${file}: no such certificate (run conformance certify first)`);
  let certificate: Partial<Certificate>;
  try {
    certificate = JSON.parse(readFileSync(file, 'utf8')) as Partial<Certificate>;
  } catch (error) {
    throw new HarnessError('CONF_INVALID_VALUE', `${file} is not JSON (${(error as Error).message.split('\n')[0]})`);
  }
  const reports = certificate.reports;
  if (certificate.certificateVersion !== CERTIFICATE_VERSION || !reports || typeof reports !== 'object' || Object.keys(reports).length === 0) {
    throw new HarnessError('CONF_INVALID_VALUE', `${file} is not a certificate of version ${CERTIFICATE_VERSION} with report hashes`);
  }
  const dir = dirname(file);
  const lines: string[] = [];
  const mismatched: string[] = [];
  for (const [name, expected] of Object.entries(reports)) {
    // Names only, never paths: a certificate cannot point the check at other files.
    if (basename(name) !== name) throw new HarnessError('CONF_INVALID_VALUE', `${file} names a report outside its folder: ${JSON.stringify(name)}`);
    const path = join(dir, name);
    if (!existsSync(path)) {
      mismatched.push(name);
      lines.push(`MISSING  ${name}`);
      continue;
    }
    const actual = sha256Hex(readFileSync(path));
    if (actual === expected) lines.push(`ok       ${name}  ${actual}`);
    else {
      mismatched.push(name);
      lines.push(`CHANGED  ${name}  expected ${String(expected)}, found ${actual}`);
    }
  }
  if (!(REPORT_JSON in reports)) {
    return { ok: false, lines, mismatched, contentMismatch: `reports: the certificate names no ${REPORT_JSON}, so its contents cannot be checked` };
  }
  // A changed report.json is reported above; only an unchanged one says what the certificate must.
  if (mismatched.includes(REPORT_JSON)) return { ok: false, lines, mismatched };
  let report: RunResult;
  try {
    report = JSON.parse(readFileSync(join(dir, REPORT_JSON), 'utf8')) as RunResult;
  } catch (error) {
    return { ok: false, lines, mismatched, contentMismatch: `${REPORT_JSON} is not JSON (${(error as Error).message.split('\n')[0]})` };
  }
  const contentMismatch = certificateContentMismatch(certificate, report);
  return { ok: mismatched.length === 0 && contentMismatch === undefined, lines, mismatched, ...(contentMismatch ? { contentMismatch } : {}) };
}
