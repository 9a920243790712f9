// The `conformance` command line. Each command is one entry of COMMANDS (name, usage, handler), so
// adding one is adding an entry. Every HarnessError becomes one line on stderr and exit 2; no
// stack trace reaches a user unless CONFORMANCE_DEBUG=1.
import { chmodSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { loadConfig } from './config.ts';
import { HarnessError } from './errors.ts';
import { GATING_COMMANDS, RUN_GATING_OPTIONS, RUN_GATING_USAGE, prepareGatedRun, printPlan } from './gating/commands.ts';
import { mergeShardReports, runConformance, startEmbeddedReference } from './runner.ts';
import type { RunOptions } from './runner.ts';

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** What a command gets besides its parsed arguments. */
export interface CommandContext {
  io: CliIo;
  /** Overrides for tests (fixture suites folder). */
  runOptions: Pick<RunOptions, 'suitesDir'>;
}

export interface Command {
  name: string;
  /** One line for `conformance help`. */
  summary: string;
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  allowPositionals?: boolean;
  run(args: { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] }, context: CommandContext): Promise<number>;
}

const listOf = (value: unknown): string[] | undefined =>
  typeof value === 'string' ? value.split(',').map((s) => s.trim()).filter(Boolean) : undefined;

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

const runCommand: Command = {
  name: 'run',
  summary: 'run the conformance checks and write the reports (the default of npm start)',
  usage:
    'conformance run [--topic a,b] [--profile full|safe] [--env-file F] [--report-dir D] [--seed N] [--runs N]\n' +
    '                [--defects a,b] [--shard i/n] [--merge-reports DIR [DIR...]]\n' +
    RUN_GATING_USAGE,
  options: {
    topic: { type: 'string' },
    profile: { type: 'string' },
    'env-file': { type: 'string' },
    'report-dir': { type: 'string' },
    seed: { type: 'string' },
    runs: { type: 'string' },
    defects: { type: 'string' },
    shard: { type: 'string' },
    'merge-reports': { type: 'string' },
    ...RUN_GATING_OPTIONS,
  },
  allowPositionals: true,
  async run({ values, positionals }, { io, runOptions }) {
    const config = loadConfig({
      topic: str(values.topic),
      profile: str(values.profile),
      envFile: str(values['env-file']),
      reportDir: str(values['report-dir']),
      seed: str(values.seed),
      runs: str(values.runs),
      defects: str(values.defects),
      shard: str(values.shard),
      rate: str(values.rate),
    });
    const merge = str(values['merge-reports']);
    if (merge !== undefined) {
      const dirs = [...(listOf(merge) ?? []), ...positionals];
      const outcome = await mergeShardReports(dirs, config.reportDir, io.out);
      return outcome.exitCode;
    }
    if (positionals.length > 0) throw new HarnessError('CONF_INVALID_VALUE', `unexpected argument ${positionals[0]} (see conformance help)`);
    if (values['dry-run'] === true) return printPlan(config, values, { io, runOptions });
    // Verdict tiers, --strict, --baseline and per-check request budgets (harness/gating).
    const gated = prepareGatedRun(config, values);
    const outcome = await runConformance(gated.config, { ...runOptions, print: io.out, printError: io.err, ...gated.options });
    gated.after(outcome, io);
    return outcome.exitCode;
  },
};

const serveCommand: Command = {
  name: 'serve',
  summary: 'start the embedded reference alone and print the CONFORMANCE_* lines that point a run at it',
  usage: 'conformance serve [--port P] [--env-out F] [--defects a,b]',
  options: {
    port: { type: 'string' },
    'env-out': { type: 'string' },
    defects: { type: 'string' },
  },
  async run({ values }, { io }) {
    const portText = str(values.port);
    let port: number | undefined;
    if (portText !== undefined) {
      if (!/^\d+$/.test(portText) || Number(portText) > 65535) {
        throw new HarnessError('CONF_INVALID_VALUE', `--port must be a port number 0-65535 (got ${JSON.stringify(portText)})`);
      }
      port = Number(portText);
    }
    const reference = await startEmbeddedReference({ defects: listOf(values.defects) ?? [], ...(port !== undefined ? { port } : {}) });
    const lines = reference.envLines();
    for (const line of lines) io.out(line);
    const envOut = str(values['env-out']);
    if (envOut !== undefined) {
      try {
        writeFileSync(envOut, `${lines.join('\n')}\n`, { mode: 0o600 });
        // The mode above applies to a new file only; the lines hold client secrets.
        chmodSync(envOut, 0o600);
      } catch (error) {
        await reference.close();
        throw new HarnessError('REPORT_WRITE_FAILED', `--env-out ${envOut}: ${(error as Error).message}`);
      }
    }
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    await reference.close();
    return 0;
  },
};

const helpCommand: Command = {
  name: 'help',
  summary: 'show the commands and their options',
  usage: 'conformance help',
  options: {},
  async run(_args, { io }) {
    io.out('usage: conformance <command> [options]\n');
    for (const command of COMMANDS.values()) {
      io.out(`  ${command.name.padEnd(18)} ${command.summary}`);
      io.out(`                     ${command.usage.replace(/\n/g, '\n                     ')}`);
    }
    io.out('\nConfiguration: CONFORMANCE_* variables, from flags > environment > .env (see .env.example).');
    io.out('Exit status of run: 0 every executed check passed, 1 a check failed, 2 the run could not be made.');
    return 0;
  },
};

/** The command table; `registerCommand` adds to it (plan, certify, replay, baseline, ...). */
export const COMMANDS = new Map<string, Command>([runCommand, serveCommand, ...GATING_COMMANDS, helpCommand].map((c) => [c.name, c]));

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
    const command = COMMANDS.get(commandName);
    if (!command) throw new HarnessError('CONF_INVALID_VALUE', `unknown command ${JSON.stringify(name)}; commands: ${[...COMMANDS.keys()].join(', ')}`);
    let parsed: ReturnType<typeof parseArgs>;
    try {
      parsed = parseArgs({ args: rest, options: command.options, allowPositionals: command.allowPositionals ?? false, strict: true });
    } catch (error) {
      throw new HarnessError('CONF_INVALID_VALUE', `${(error as Error).message.split('\n')[0]} (usage: ${command.usage.split('\n')[0]})`);
    }
    return await command.run(parsed as never, { io, runOptions });
  } catch (error) {
    if (error instanceof HarnessError) {
      io.err(`conformance: ${error.message} [${error.code}]`);
    } else {
      const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
      io.err(`conformance: unexpected error: ${message} (set CONFORMANCE_DEBUG=1 for details)`);
    }
    if (process.env.CONFORMANCE_DEBUG === '1' && error instanceof Error && error.stack) io.err(error.stack);
    return 2;
  }
}
