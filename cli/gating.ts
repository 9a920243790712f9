// The gating commands of the CLI (plan, baseline, replay, certify, verify-certificate) and the
// gating part of `run` (--strict, --baseline, --dry-run, --rate). cli/main.ts lists them in
// its command table; this module only imports its types. The gating modules themselves are loaded
// by the handlers that use them: the catalogue they read (spec/requirements.yaml) takes longer to
// parse than `--help` may take as a whole.
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { RUN_FLAGS, flagsOf, str, type Command, type CommandContext, type CliIo, type Values } from '../harness/command.ts';
import type { RunConfig } from '../harness/config.ts';
import { loadConfig, reportDirSetting } from '../harness/config.ts';
import { HarnessError } from '../harness/errors.ts';
import type { RunOptions } from '../harness/runner.ts';
import type { RunResult } from '../harness/result.ts';
import { TOPICS } from '../core/model.ts';
import type { LoadedBaseline } from '../harness/gating/baseline.ts';

const loadBaselines = () => import('../harness/gating/baseline.ts');
const loadCertificates = () => import('../harness/gating/certificate.ts');
const loadAttestations = () => import('../harness/gating/attestation.ts');
const loadSigningKeys = () => import('../harness/gating/signing-keys.ts');
const loadPlans = () => import('../harness/gating/plan.ts');
const loadReplay = () => import('../harness/gating/replay.ts');
const loadTiers = () => import('../harness/gating/tiers.ts');

/** Options `run` gains from gating (added to its option table in cli/main.ts). */
export const RUN_GATING_OPTIONS = {
  strict: { type: 'boolean' },
  baseline: { type: 'string' },
  'dry-run': { type: 'boolean' },
  rate: { type: 'string' },
} as const;

export const RUN_GATING_USAGE = '                [--strict] [--baseline FILE] [--dry-run [--rate N/s]]';

/** The tiers and baseline lines of a graded run. */
function gatingLines(result: RunResult): string[] {
  const gating = result.gating;
  if (!gating) return [];
  const t = gating.tiers;
  const lines = [
    `tiers: must ${t.must.failed} failed of ${t.must.checks}; should ${t.should.failed} failed of ${t.should.checks}${gating.strict ? ' (strict)' : ''}; advisory ${t.advisory.failed} failed, ${gating.advisoryFindings} findings`,
  ];
  const b = gating.baseline;
  if (b) lines.push(`baseline ${b.file}: ${b.known.length} known, ${b.new.length} new, ${b.stale.length} stale, ${b.unconfirmed.length} not confirmed`);
  for (const line of gating.blocking) lines.push(`  fails the run: ${line}`);
  return lines;
}

function printGating(result: RunResult, io: CliIo): void {
  for (const line of gatingLines(result)) io.out(line);
}

export interface GatedRun {
  config: RunConfig;
  /** The grading, and its tiers and baseline lines printed before the verdict line. */
  options: Pick<RunOptions, 'finalize' | 'gatingLines'>;
}

/**
 * What `run` does with the gating flags: checks held to their budgets, the result graded into
 * tiers, and the baseline (read, and refused with exit 2, before anything is sent) applied.
 */
export async function prepareGatedRun(config: RunConfig, values: Values): Promise<GatedRun> {
  const [{ loadBaseline }, { withCheckBudgets }, { gradeRun }] = await Promise.all([loadBaselines(), loadPlans(), loadTiers()]);
  const baselineFile = str(values.baseline);
  const baseline: LoadedBaseline | undefined = baselineFile ? loadBaseline(resolve(baselineFile)) : undefined;
  const strict = values.strict === true;
  return {
    config: withCheckBudgets(config),
    options: { finalize: (result) => gradeRun(result, { strict, ...(baseline ? { baseline } : {}) }), gatingLines },
  };
}

/** `conformance plan` and `run --dry-run`: prints the plan; nothing is sent. */
export async function printPlan(config: RunConfig, values: Values, context: CommandContext): Promise<number> {
  const { collectPlan, formatPlan, parseRate, withCheckBudgets } = await loadPlans();
  const rate = parseRate(str(values.rate)) ?? config.settings.rate;
  const plan = await collectPlan(withCheckBudgets(config), { ...(context.runOptions.suitesDir ? { suitesDir: context.runOptions.suitesDir } : {}) });
  if (values.json === true) context.io.out(JSON.stringify({ ...plan, ...(rate ? { rate, leastWallTimeSeconds: plan.totalRequests / rate } : {}) }, null, 2));
  else for (const line of formatPlan(plan, rate)) context.io.out(line);
  return 0;
}

const planCommand: Command = {
  name: 'plan',
  summary: 'print the checks a run would execute and the most requests each sends; sends nothing',
  usage: 'conformance plan [--topic a,b] [--profile full|safe] [--env-file F] [--runs N] [--rate N/s] [--json]',
  options: { ...RUN_FLAGS, json: { type: 'boolean' } },
  async run({ values }, context) {
    return printPlan(loadConfig(flagsOf(values)), values, context);
  },
};

const baselineCommand: Command = {
  name: 'baseline',
  summary: 'write a baseline of known failures from a report (fill in each reason before use)',
  usage: 'conformance baseline [--report reports/report.json] [--out conformance-baseline.json]',
  options: { report: { type: 'string' }, out: { type: 'string' }, 'report-dir': { type: 'string' } },
  async run({ values }, { io }) {
    const [{ baselineFromReport, REASON_PLACEHOLDER }, { readReport }] = await Promise.all([loadBaselines(), loadReplay()]);
    const reportFile = resolve(str(values.report) ?? join(reportDirSetting(str(values['report-dir'])), 'report.json'));
    const out = resolve(str(values.out) ?? 'conformance-baseline.json');
    const report = readReport(reportFile);
    const baseline = baselineFromReport(report, str(values.report) ?? reportFile);
    try {
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, `${JSON.stringify(baseline, null, 2)}\n`);
    } catch (error) {
      throw new HarnessError('REPORT_WRITE_FAILED', `--out ${out}: ${(error as Error).message.split('\n')[0]}`);
    }
    io.out(`wrote ${out}: ${baseline.knownFailures.length} known failures`);
    if (baseline.knownFailures.length > 0) {
      io.out(`replace each "${REASON_PLACEHOLDER}" with why the failure is accepted for now; run --baseline refuses entries without a reason`);
    }
    return 0;
  },
};

const replayCommand: Command = {
  name: 'replay',
  summary: 'run one check of a report again (same seed, target and defects) and say whether it still fails',
  usage: 'conformance replay REPORT CHECK_ID [--env-file F] [--report-dir D]',
  options: { 'env-file': { type: 'string' }, 'report-dir': { type: 'string' } },
  allowPositionals: true,
  async run({ values, positionals }, { io, runOptions }) {
    const [reportArg, checkId, extra] = positionals;
    if (!reportArg || !checkId || extra !== undefined) {
      throw new HarnessError('CONF_INVALID_VALUE', 'replay needs a report file and one check id (conformance replay reports/report.json wallet/reserved-zero)');
    }
    const [{ readReport, replayConfig }, { withCheckBudgets }] = await Promise.all([loadReplay(), loadPlans()]);
    const report = readReport(resolve(reportArg));
    const base = loadConfig({ envFile: str(values['env-file']) });
    const plan = replayConfig(report, checkId, base, reportArg, str(values['report-dir']));
    const before = plan.check;
    io.out(`replaying ${checkId} (was ${before.status}${before.failure ? `: ${before.failure.requirement}` : ''}) with seed ${plan.config.settings.seed}, ${plan.config.settings.runs} cases per property`);
    if (plan.wholeRun) io.out(`note: ${plan.wholeRun}`);
    const { runConformance } = await import('../harness/runner.ts');
    const outcome = await runConformance(withCheckBudgets(plan.config), {
      ...runOptions,
      print: () => undefined,
      printError: io.err,
      ...(plan.testNamePattern !== undefined ? { testNamePattern: plan.testNamePattern } : {}),
    });
    const now = outcome.result.topics.flatMap((t) => t.checks).find((c) => c.id === checkId);
    if (!now) throw new HarnessError('CONF_INVALID_VALUE', `${checkId} did not run in the replay (renamed or removed since the report?)`);
    if (now.status === 'fail' || now.status === 'warn') {
      // The same check can now break another rule: that is a different finding, not the same one.
      const was = before.failure?.requirement;
      const is = now.failure?.requirement;
      const verdict = was !== undefined && is !== undefined && was !== is ? `FAILS DIFFERENTLY (was ${was}, now ${is})` : 'STILL FAILS';
      io.out(`${verdict}: ${checkId}: ${now.reason ?? now.status}`);
      for (const exchange of now.evidence.slice(0, 3)) io.out(`  ${exchange.curl}`);
      io.out(`replay report: ${plan.config.reportDir}`);
      return 1;
    }
    if (now.status === 'pass') {
      io.out(`PASSES NOW: ${checkId}`);
      return 0;
    }
    throw new HarnessError('CONF_INVALID_VALUE', `${checkId} could not be decided in the replay (${now.status}: ${now.reason ?? ''})`);
  },
};

const certifyCommand: Command = {
  name: 'certify',
  summary: 'run the full profile over every topic and write certificate.json (listing must checks not observable on the target as exclusions), with --sign-key also its signed form certificate.intoto.jsonl; or refuse if a must check failed, erred or was skipped for a precondition',
  usage: "conformance certify [--sign-key KEY.pem] [--topic a,b] [--env-file F] [--report-dir D] [--seed N] [--runs N] [--defects a,b] [--header 'Name: value']...",
  // A gateway in front of the API needs its headers on a certification run too.
  options: { ...RUN_FLAGS, header: { type: 'string', multiple: true }, 'sign-key': { type: 'string' } },
  async run({ values }, { io, runOptions }) {
    if (values.profile !== undefined && values.profile !== 'full') {
      throw new HarnessError('CONF_INVALID_VALUE', 'certify runs the full profile only (omit --profile)');
    }
    // Read once, before anything is sent: a key that cannot sign refuses the run, not its end.
    const signKeyFile = str(values['sign-key']);
    const signer = signKeyFile !== undefined ? (await loadSigningKeys()).readSigningKey(resolve(signKeyFile)) : undefined;
    const [{ collectPlan, missingPreconditions, withCheckBudgets }, { certificationOf, gradeRun, tierOfRequirements }, { CERTIFICATE_FILE, buildCertificate, renderCertificate }, attestations, { exclusionsSentence }] =
      await Promise.all([loadPlans(), loadTiers(), loadCertificates(), loadAttestations(), import('../harness/reports/gating.ts')]);
    const headers = Array.isArray(values.header) ? values.header : undefined;
    const loaded = loadConfig({ ...flagsOf(values), profile: 'full', ...(headers ? { headers } : {}) });
    const config = withCheckBudgets(loaded);
    // The run is held to its plan as a whole, not only check by check.
    const plan = await collectPlan(config, { ...(runOptions.suitesDir ? { suitesDir: runOptions.suitesDir } : {}) });
    config.settings = { ...config.settings, maxRequests: Math.max(1, Math.min(config.settings.maxRequests, plan.totalRequests)) };
    io.out(`certify: plan of ${plan.checks.length} checks, at most ${plan.totalRequests} requests`);
    // Known before a request is sent: a must check without its fixtures refuses the certificate.
    for (const { reason, checks } of missingPreconditions(plan, (c) => tierOfRequirements(c.requirements) === 'must')) {
      io.out(`certify: ${checks.length} must check${checks.length === 1 ? '' : 's'} will be skipped, refusing certification: ${reason} (${checks.join(', ')})`);
    }
    const allTopics = TOPICS.every((t) => config.topics.includes(t));
    if (!allTopics) {
      io.out(`certify: PARTIAL RUN (topics ${config.topics.join(', ')} only): certification covers every topic, so this run will be NOT CERTIFIED`);
    }
    const certificatePath = join(config.reportDir, CERTIFICATE_FILE);
    const attestationPath = join(config.reportDir, attestations.ATTESTATION_FILE);
    const { runConformance } = await import('../harness/runner.ts');
    const outcome = await runConformance(config, {
      ...runOptions,
      print: io.out,
      printError: io.err,
      finalize: (result) => {
        const graded = gradeRun(result);
        return { ...graded, gating: { ...graded.gating!, certification: certificationOf(graded) } };
      },
      afterReports: async (result, leakScan) => {
        // A certificate from an earlier run must never sit beside reports it does not describe.
        rmSync(certificatePath, { force: true });
        rmSync(attestationPath, { force: true });
        if (!result.gating?.certification?.certified) return;
        const text = renderCertificate(buildCertificate(result, config.reportDir));
        leakScan({ [CERTIFICATE_FILE]: text });
        writeFileSync(certificatePath, text);
        if (!signer) return;
        const signed = attestations.renderAttestation(attestations.buildStatement(result, config.reportDir), signer);
        // The envelope carries the statement in base64, where a scan of the line would not see a secret.
        leakScan({ [attestations.ATTESTATION_FILE]: `${signed.statement}\n${signed.line}` });
        writeFileSync(attestationPath, signed.line);
      },
    });
    const certification = outcome.result.gating?.certification;
    printGating(outcome.result, io);
    const exclusions = certification?.exclusions ?? [];
    if (!certification?.certified) {
      const count = certification?.refusals.length ?? 0;
      io.out(`NOT CERTIFIED (${count} reason${count === 1 ? '' : 's'}):`);
      for (const reason of certification?.refusals ?? []) io.out(`  - ${reason}`);
      if (exclusions.length > 0) io.out(`  (and ${exclusions.length} must checks not observable on this target, which would be exclusions)`);
      return 1;
    }
    io.out(`${exclusionsSentence(exclusions.length).replace(/^Certified/, 'CERTIFIED')}: ${certificatePath}`);
    for (const e of exclusions) io.out(`  - excluded ${e.check} (${e.requirements.join(', ')}): ${e.reason}`);
    if (signer) io.out(`signed (${signer.algorithm} key sha256:${signer.fingerprint.slice(0, 16)}): ${attestationPath}`);
    return 0;
  },
};

/** The file a verify-certificate argument names: the argument itself, or `name` in the folder it names. */
function inFolder(arg: string | undefined, name: string): string {
  const path = resolve(arg ?? reportDirSetting(undefined));
  let folder = arg === undefined;
  try {
    folder = statSync(path).isDirectory();
  } catch {
    // Not there: read as the file itself, which the reader then reports as missing.
  }
  return folder ? join(path, name) : path;
}

const verifyCertificateCommand: Command = {
  name: 'verify-certificate',
  summary:
    'check a certificate: with --public-key, the signature of certificate.intoto.jsonl, every file it certifies and its verdict; without, the sha256 of the reports certificate.json names and its contents against report.json (exit 1 if anything differs)',
  usage: 'conformance verify-certificate [--public-key KEY.pub] [DIR (default reports) | FILE]',
  options: { 'public-key': { type: 'string' } },
  allowPositionals: true,
  async run({ values, positionals }, { io }) {
    if (positionals.length > 1) throw new HarnessError('CONF_INVALID_VALUE', 'verify-certificate takes one folder or certificate file');
    const publicKeyFile = str(values['public-key']);
    if (publicKeyFile !== undefined) return verifySigned(resolve(publicKeyFile), positionals[0], io);
    const { CERTIFICATE_FILE, verifyCertificate } = await loadCertificates();
    const file = inFolder(positionals[0], CERTIFICATE_FILE);
    const outcome = verifyCertificate(file);
    for (const line of outcome.lines) io.out(line);
    if (outcome.mismatched.length > 0) {
      io.err(`conformance: ${file} does not match: ${outcome.mismatched.join(', ')} changed or missing since certification`);
      return 1;
    }
    if (outcome.contentMismatch !== undefined) {
      io.err(`conformance: ${file} does not say what report.json says: ${outcome.contentMismatch}`);
      return 1;
    }
    io.out(`${file}: every report file matches, and the certificate says what report.json says`);
    return 0;
  },
};

/** `verify-certificate --public-key`: a few lines of what was certified, or the first mismatch in one line. */
async function verifySigned(publicKeyFile: string, arg: string | undefined, io: CliIo): Promise<number> {
  const [{ ATTESTATION_FILE, verifyAttestation }, { readPublicKey }] = await Promise.all([loadAttestations(), loadSigningKeys()]);
  const verifier = readPublicKey(publicKeyFile);
  const file = inFolder(arg, ATTESTATION_FILE);
  const outcome = verifyAttestation(file, verifier);
  if (!outcome.ok) {
    io.err(`conformance: ${file} does not verify: ${outcome.reason}`);
    return 1;
  }
  io.out(`verified ${file}`);
  for (const line of outcome.lines) io.out(`  ${line}`);
  return 0;
}

/** Listed in cli/main.ts's command table. */
export const GATING_COMMANDS: Command[] = [planCommand, baselineCommand, replayCommand, certifyCommand, verifyCertificateCommand];

