// The `conformance` command line. Each command is one entry of COMMANDS (name, usage, handler), so
// adding one is adding an entry. Every HarnessError becomes one line on stderr and exit 2; no
// stack trace reaches a user unless CONFORMANCE_DEBUG=1.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../harness/config.ts';
import { HarnessError } from '../harness/errors.ts';
import { GATING_COMMANDS, RUN_GATING_OPTIONS, RUN_GATING_USAGE, prepareGatedRun, printPlan } from './gating.ts';
import { PACKAGE_ROOT } from '../harness/package.ts';
import { didYouMean } from '../harness/closest.ts';
import { maskSecretLines } from '../harness/config.ts';
import { untilStopped, writePidFile } from '../harness/lifetime.ts';
import { writeWholeFile } from '../harness/whole-file.ts';
import { RUN_FLAGS, flagsOf, listOf, str, wholeNumber, type Command, type CommandContext, type CliIo } from '../harness/command.ts';

export type { Command, CommandContext, CliIo } from '../harness/command.ts';


const strings = (value: unknown): string[] | undefined => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined);

const runCommand: Command = {
  name: 'run',
  summary: 'run the conformance checks and write the reports (the default of npm start)',
  usage:
    'conformance run [--topic a,b] [--profile full|safe] [--env-file F] [--report-dir D] [--seed N] [--runs N]\n' +
    '                [--defects a,b] [--shard i/n] [--merge-reports DIR [DIR...]]\n' +
    "                [--check ID]... [--exclude-check ID]... [--max-failures N] [--header 'Name: value']... [--json] [--quiet]\n" +
    RUN_GATING_USAGE,
  options: {
    ...RUN_FLAGS,
    shard: { type: 'string' },
    'merge-reports': { type: 'string' },
    check: { type: 'string', multiple: true },
    'exclude-check': { type: 'string', multiple: true },
    'max-failures': { type: 'string' },
    header: { type: 'string', multiple: true },
    json: { type: 'boolean' },
    quiet: { type: 'boolean' },
    ...RUN_GATING_OPTIONS,
  },
  allowPositionals: true,
  async run({ values, positionals }, { io, runOptions }) {
    const config = loadConfig({
      ...flagsOf(values),
      shard: str(values.shard),
      checks: strings(values.check),
      excludeChecks: strings(values['exclude-check']),
      maxFailures: str(values['max-failures']),
      headers: strings(values.header),
    });
    const output = values.json === true ? 'json' : values.quiet === true ? 'quiet' : 'normal';
    const merge = str(values['merge-reports']);
    if (merge !== undefined) {
      const dirs = [...(listOf(merge) ?? []), ...positionals];
      const [{ mergeShardReports }, { jsonSummary }] = await Promise.all([loadRunner(), loadOutput()]);
      const outcome = await mergeShardReports(dirs, config.reportDir, io.out, { output, printError: io.err });
      if (output === 'json') io.out(JSON.stringify(jsonSummary(outcome)));
      return outcome.exitCode;
    }
    if (positionals.length > 0) throw new HarnessError('CONF_INVALID_VALUE', `unexpected argument ${positionals[0]} (see conformance help)`);
    if (values['dry-run'] === true) return printPlan(config, values, { io, runOptions });
    // Verdict tiers, --strict, --baseline and per-check request budgets (harness/gating).
    const gated = await prepareGatedRun(config, values);
    const [{ runConformance }, { jsonSummary }] = await Promise.all([loadRunner(), loadOutput()]);
    const outcome = await runConformance(gated.config, { ...runOptions, print: io.out, printError: io.err, output, ...gated.options });
    if (config.settings.selection && outcome.result.summary.total === 0) {
      throw new HarnessError('CONF_INVALID_VALUE', `--check / --exclude-check selected no check of the topics ${config.topics.join(', ')} (check ids look like wallet/currency-code, requirement ids like WAL-*)`);
    }
    if (output === 'json') io.out(JSON.stringify(jsonSummary(outcome)));
    return outcome.exitCode;
  },
};

/** The runner (vitest, the reference) is loaded by the commands that run or serve, not by help or version. */
const loadRunner = () => import('../harness/runner.ts');
/** The console lines of a run; they read the requirements catalogue, which help and version need not parse. */
const loadOutput = () => import('../harness/output.ts');

const serveCommand: Command = {
  name: 'serve',
  summary: 'start the embedded reference alone and print the CONFORMANCE_* lines that point a run at it',
  usage: 'conformance serve [--port P] [--env-out F] [--pid-file F] [--defects a,b] [--rate-limit N] [--latency-ms N] [--show-secrets]',
  options: {
    port: { type: 'string' },
    'env-out': { type: 'string' },
    'pid-file': { type: 'string' },
    defects: { type: 'string' },
    'rate-limit': { type: 'string' },
    'latency-ms': { type: 'string' },
    'show-secrets': { type: 'boolean' },
  },
  async run({ values }, { io }) {
    const port = wholeNumber(values.port, '--port', 0, 65535);
    const rateLimit = wholeNumber(values['rate-limit'], '--rate-limit', 1, 100_000);
    const latencyMs = wholeNumber(values['latency-ms'], '--latency-ms', 0, 60_000);
    const pidFile = str(values['pid-file']);
    const { startEmbeddedReference } = await loadRunner();
    const reference = await startEmbeddedReference({
      defects: listOf(values.defects) ?? [],
      ...(port !== undefined ? { port } : {}),
      ...(rateLimit !== undefined ? { rateLimit } : {}),
      ...(latencyMs !== undefined ? { latencyMs } : {}),
    });
    const lines = reference.envLines();
    // Secrets go to the --env-out file (mode 600), not to a terminal or CI log, unless asked for.
    for (const line of values['show-secrets'] === true ? lines : maskSecretLines(lines)) io.out(line);
    const envOut = str(values['env-out']);
    if (envOut === undefined && values['show-secrets'] !== true) {
      io.err('conformance: client secrets are masked; pass --env-out F to write the lines with them to a file (or --show-secrets)');
    }
    if (envOut !== undefined) {
      try {
        // Mode 600: the lines hold client secrets.
        writeWholeFile(envOut, `${lines.join('\n')}\n`, 0o600);
      } catch (error) {
        await reference.close();
        throw new HarnessError('REPORT_WRITE_FAILED', `--env-out ${envOut}: ${(error as Error).message}`);
      }
    }
    let removePidFile: () => void = () => undefined;
    try {
      if (pidFile !== undefined) removePidFile = writePidFile(pidFile);
      await untilStopped({ command: 'serve', say: io.err });
    } finally {
      await reference.close();
      removePidFile();
    }
    return 0;
  },
};

/** Recorded and live traffic (traffic/), loaded only when `check` or `proxy` runs. */
const loadTraffic = () => import('./traffic.ts');

const checkCommand: Command = {
  name: 'check',
  summary: 'judge recorded traffic (HAR 1.2 files or a run\'s exchanges.jsonl) against the document; sends no request',
  usage: 'conformance check FILE [FILE...] [--env-file F] [--report-dir D] [--partition i/n]\n' + '       conformance check --merge-reports DIR [DIR...] [--env-file F] [--report-dir D]',
  options: {
    'env-file': { type: 'string' },
    'report-dir': { type: 'string' },
    partition: { type: 'string' },
    'merge-reports': { type: 'string' },
  },
  allowPositionals: true,
  async run({ values, positionals }, { io }) {
    const { checkCommand: check } = await loadTraffic();
    const merge = str(values['merge-reports']);
    const partition = str(values.partition);
    if (merge !== undefined && partition !== undefined) throw new HarnessError('CONF_INVALID_VALUE', '--partition and --merge-reports do not go together: judge each partition, then merge their folders');
    return check(positionals, {
      envFile: str(values['env-file']),
      reportDir: str(values['report-dir']),
      ...(partition !== undefined ? { partition } : {}),
      ...(merge !== undefined ? { mergeReports: listOf(merge) ?? [] } : {}),
    }, io);
  },
};

const proxyCommand: Command = {
  name: 'proxy',
  summary: 'a loopback forwarding proxy that judges the traffic passing through it live and writes the reports when stopped',
  usage: 'conformance proxy --upstream URL [--port P] [--report-dir D] [--env-file F] [--until-idle S] [--pid-file F]',
  options: {
    upstream: { type: 'string' },
    port: { type: 'string' },
    'pid-file': { type: 'string' },
    'report-dir': { type: 'string' },
    'env-file': { type: 'string' },
    'until-idle': { type: 'string' },
  },
  async run({ values }, { io }) {
    const upstream = str(values.upstream);
    if (upstream === undefined) throw new HarnessError('CONF_INVALID_VALUE', 'proxy needs --upstream URL (the API host to forward to)');
    const port = wholeNumber(values.port, '--port', 0, 65535);
    const untilIdle = wholeNumber(values['until-idle'], '--until-idle', 1, 86_400);
    const { proxyCommand: proxy } = await loadTraffic();
    return proxy({ upstream, port, untilIdleSeconds: untilIdle, pidFile: str(values['pid-file']), envFile: str(values['env-file']), reportDir: str(values['report-dir']) }, io);
  },
};

/** One line per option, for `conformance COMMAND --help`. */
export const OPTION_MEANINGS: Record<string, string> = {
  topic: 'topic ids to run, comma-separated (CONFORMANCE_TOPICS)',
  profile: 'full or safe; safe sends only reads (CONFORMANCE_PROFILE)',
  'env-file': 'read this file instead of ./.env',
  'report-dir': 'where the reports go (CONFORMANCE_REPORT_DIR)',
  seed: 'property-based seed, to replay a run (CONFORMANCE_SEED)',
  runs: 'cases per property (CONFORMANCE_RUNS)',
  defects: 'embedded reference only: named defects to switch on (CONFORMANCE_REFERENCE_DEFECTS)',
  shard: 'run only the i-th of n shares of the topic files',
  'merge-reports': 'merge the reports of every shard run (run) or partition (check) into one report',
  partition: 'check: judge only the exchanges of the businesses that hash to partition i of n',
  check: 'run only checks whose id or requirement id matches (glob; repeatable)',
  'exclude-check': 'leave out checks whose id or requirement id matches (glob; repeatable)',
  'max-failures': 'after N failed checks, skip the rest (exit 1; the report says it stopped)',
  header: "extra header 'Name: value' on every API request (repeatable; credential-like values redacted)",
  json: 'print JSON on stdout (run: the summary as one object, nothing else)',
  quiet: 'print only the findings, the verdict and the report files',
  strict: 'should failures fail the run',
  baseline: 'known failures that do not fail the run',
  'dry-run': 'print the plan instead of running',
  rate: 'a known request rate limit of the target, N/s (CONFORMANCE_RATE)',
  port: 'API port (default ephemeral)',
  'env-out': 'write the CONFORMANCE_* lines, secrets included, to this file (mode 600)',
  'show-secrets': 'print client secrets on stdout too (not masked)',
  'rate-limit': 'answer 429 with Retry-After past N requests per second (a sandbox\'s pace)',
  'latency-ms': 'delay every answer by N milliseconds (a distant host)',
  report: 'the report to read (default reports/report.json)',
  out: 'where to write (default conformance-baseline.json)',
  upstream: 'proxy: the API host the traffic is forwarded to',
  'until-idle': 'proxy: write the reports and stop after S seconds without traffic',
  'pid-file': 'write the pid of the process that listens to F once it listens (removed on exit): kill "$(cat F)" stops it whatever started it',
  'sign-key': 'certify: also sign the certificate with this PEM private key (Ed25519 or ECDSA P-256), as certificate.intoto.jsonl',
  'public-key': 'verify-certificate: check the signed certificate.intoto.jsonl with this PEM public key',
};

/** `conformance COMMAND --help`: its usage, what it does, and each option. */
export function usageOf(command: Command): string[] {
  const lines = [`usage: ${command.usage}`, '', command.summary];
  const names = Object.keys(command.options);
  if (names.length > 0) {
    lines.push('', 'options:');
    for (const name of names) lines.push(`  --${name.padEnd(16)} ${OPTION_MEANINGS[name] ?? ''}`.trimEnd());
  }
  lines.push(`  --${'help'.padEnd(16)} this text`, '', 'Exit status: 0 pass, 1 a check failed, 2 the run could not be made. Every option and variable: docs/usage.md.');
  return lines;
}

const helpCommand: Command = {
  name: 'help',
  summary: 'show the commands, or one command\'s usage (help COMMAND)',
  usage: 'conformance help [COMMAND]',
  options: {},
  allowPositionals: true,
  async run({ positionals }, { io }) {
    const [name, extra] = positionals;
    if (extra !== undefined) throw new HarnessError('CONF_INVALID_VALUE', 'help takes one command name');
    if (name !== undefined) {
      const command = COMMANDS.get(name);
      if (!command) throw new HarnessError('CONF_INVALID_VALUE', `unknown command ${JSON.stringify(name)}${didYouMean(name, COMMANDS.keys())}; commands: ${[...COMMANDS.keys()].join(', ')}`);
      for (const line of usageOf(command)) io.out(line);
      return 0;
    }
    io.out('usage: conformance <command> [options]   (conformance <command> --help for its options)\n');
    for (const command of COMMANDS.values()) {
      io.out(`  ${command.name.padEnd(18)} ${command.summary}`);
      io.out(`                     ${command.usage.replace(/\n/g, '\n                     ')}`);
    }
    io.out('\nConfiguration: CONFORMANCE_* variables, from flags > environment > .env (see .env.example).');
    io.out('Exit status of run: 0 every executed check passed, 1 a check failed, 2 the run could not be made.');
    io.out('conformance --version prints the version.');
    return 0;
  },
};

/** `name version` of the installed package. */
export function versionLine(): string {
  const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
  return `${pkg.name} ${pkg.version}`;
}

/** The command table; `registerCommand` adds to it (plan, certify, replay, baseline, ...). */
export const COMMANDS = new Map<string, Command>([runCommand, serveCommand, checkCommand, proxyCommand, ...GATING_COMMANDS, helpCommand].map((c) => [c.name, c]));

export function registerCommand(command: Command): void {
  COMMANDS.set(command.name, command);
}

const defaultIo: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

export async function main(argv: string[], io: CliIo = defaultIo, runOptions: CommandContext['runOptions'] = {}): Promise<number> {
  const [name = 'help', ...rest] = argv;
  const commandName = name === '--help' || name === '-h' ? 'help' : name;
  try {
    if (name === '--version' || name === '-v' || name === 'version') {
      io.out(versionLine());
      return 0;
    }
    const command = COMMANDS.get(commandName);
    if (!command) {
      throw new HarnessError('CONF_INVALID_VALUE', `unknown command ${JSON.stringify(name)}${didYouMean(name, COMMANDS.keys())}; commands: ${[...COMMANDS.keys()].join(', ')} (conformance help)`);
    }
    // --help anywhere before a `--` wins over every other argument, as in most tools.
    const beforeDashes = rest.indexOf('--') >= 0 ? rest.slice(0, rest.indexOf('--')) : rest;
    if (beforeDashes.includes('--help') || beforeDashes.includes('-h')) {
      for (const line of usageOf(command)) io.out(line);
      return 0;
    }
    let parsed: ReturnType<typeof parseArgs>;
    try {
      parsed = parseArgs({ args: rest, options: command.options, allowPositionals: command.allowPositionals ?? false, strict: true });
    } catch (error) {
      throw new HarnessError('CONF_INVALID_VALUE', `${(error as Error).message.split('\n')[0]} (conformance ${command.name} --help)`);
    }
    return await command.run(parsed as never, { io, runOptions });
  } catch (error) {
    if (error instanceof HarnessError) {
      io.err(`conformance: ${error.message} [${error.code}]`);
      // A script reading `run --json` gets an object for a run that could not be made, too.
      if (commandName === 'run' && rest.includes('--json')) {
        io.out(JSON.stringify({ verdict: 'error', exitCode: 2, harnessErrors: [{ code: error.code, message: error.message }] }));
      }
    } else {
      const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
      io.err(`conformance: unexpected error: ${message} (set CONFORMANCE_DEBUG=1 for details)`);
    }
    if (process.env.CONFORMANCE_DEBUG === '1' && error instanceof Error && error.stack) io.err(error.stack);
    return 2;
  }
}
