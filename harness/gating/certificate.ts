// certificate.json: what a certified run checked (target, tool, contract, profile, seed, time, the
// verdict of every requirement) and the sha256 of each report file written beside it, so that
// `conformance verify-certificate` can tell whether any report was changed afterwards. It is a
// checksum bundle, not a signature: whoever can rewrite the files can rewrite it too.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { HarnessError } from '../errors.ts';
import type { RunResult } from '../result.ts';
import { REPORT_FILES } from '../reports/index.ts';

export const CERTIFICATE_FILE = 'certificate.json';
export const CERTIFICATE_VERSION = 1;
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
  /** Topics the run covered, and whether that was every topic. */
  topics: string[];
  allTopics: boolean;
  requirements: Array<{ id: string; level: string; status: string }>;
  /** sha256 (hex) of each report file, by file name, relative to the certificate's folder. */
  reports: Record<string, string>;
}

export function sha256Hex(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function buildCertificate(result: RunResult, reportDir: string, allTopics: boolean, now = new Date()): Certificate {
  const reports: Record<string, string> = {};
  // The exchange log is evidence too, when the run left one beside the reports.
  const names = [...REPORT_FILES, ...(existsSync(join(reportDir, EXCHANGE_LOG_FILE)) ? [EXCHANGE_LOG_FILE] : [])];
  for (const name of names) reports[name] = sha256Hex(readFileSync(join(reportDir, name)));
  return {
    certificateVersion: CERTIFICATE_VERSION,
    certified: true,
    issuedAt: now.toISOString(),
    tool: result.tool,
    contract: result.contract,
    target: result.target,
    profile: result.profile,
    seed: result.seed,
    runs: result.runs,
    run: { startedAt: result.startedAt, finishedAt: result.finishedAt },
    topics: result.topics.map((t) => t.id),
    allTopics,
    requirements: result.requirements.map((r) => ({ id: r.id, level: r.level, status: r.status })),
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
}

/** Recomputes the sha256 of every report file the certificate names. */
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
  return { ok: mismatched.length === 0, lines, mismatched };
}
