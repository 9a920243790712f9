// `conformance check` and `conformance proxy`: loaded by cli/main.ts only when one of them runs,
// so `--help` and the other commands never load the judge.
import { basename } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { reportDirSetting } from '../harness/config.ts';
import { HarnessError } from '../harness/errors.ts';
import { untilStopped, writePidFile } from '../harness/lifetime.ts';
import { summaryLines } from '../harness/output.ts';
import { redactText, SecretSet } from '../harness/redact.ts';
import { writeReports } from '../harness/reports/index.ts';
import { readTrafficEnv } from '../traffic/env.ts';
import type { RunningProxy } from '../traffic/proxy.ts';
import { judgeStream, judgementOf, type Judgement } from '../traffic/judge.ts';
import { mergePartitionFiles, parsePartition, readPartitionFiles, writePartitionFile } from '../traffic/partitions.ts';
import { streamTraffic } from '../traffic/read.ts';

export interface TrafficIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** The closing lines: the table, findings, the client's side, verdict and report files. */
export function closingLines(judgement: Judgement, files: string[]): string[] {
  const client = judgement.result.advisories.filter((a) => a.check.startsWith('client/'));
  const middle = client.length > 0 ? ['client side (advice to the client that made the traffic, never failing):', ...client.map((a) => `  ${a.check}: ${a.text}`), ''] : [];
  // Recorded traffic has no seed to replay: the verdict line says only the verdict.
  return summaryLines(judgement.result, files, undefined, middle)
    .map((line) => (line.startsWith('verdict: ') ? `verdict: ${judgement.result.verdict} (judged from recorded traffic; nothing was sent)` : line))
    .map((line) => redactText(line, judgement.secrets));
}

export async function writeJudgement(judgement: Judgement, reportDir: string): Promise<string[]> {
  return writeReports(reportDir, judgement.result, judgement.secrets.list());
}

export interface CheckOptions {
  envFile?: string;
  reportDir?: string;
  /** `i/n`: judge only the exchanges whose business hashes to partition i of n. */
  partition?: string;
  /** Folders of partition runs to merge into one report (the files are then none). */
  mergeReports?: string[];
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

export async function checkCommand(files: string[], options: CheckOptions, io: TrafficIo): Promise<number> {
  if (options.mergeReports) return mergeCommand([...options.mergeReports, ...files], options, io);
  if (files.length === 0) throw new HarnessError('CONF_INVALID_VALUE', 'check needs at least one file: a HAR 1.2 file or a run\'s exchanges.jsonl (conformance check --help)');
  const partition = options.partition === undefined ? undefined : parsePartition(options.partition);
  // A run wants a 1 MiB young generation and size-first code (its peak RSS); a judge streaming
  // millions of short-lived exchanges would spend most of its time collecting with them. V8 sizes
  // the young generation only at start, so the bin starts `check`'s Node with an 8 MiB one
  // (bin/conformance.mjs); size-first code, if set, can still be turned off here.
  setFlagsFromString('--no-optimize-for-size');
  // What the judge lets go (state replaced at its bounds, each exchange once judged) dies old; by
  // default V8 let the old generation grow to about four times what was live before collecting
  // (a 1 GiB log peaked at 263 MiB with 40 MiB live). Twice is enough: peak RSS about 170 MiB
  // whatever the size of the log, for no measurable time (bench, 400 MB: 8.2 s CPU default, 8.0 s).
  setFlagsFromString('--heap-growing-percent=100');
  const startedAt = new Date();
  const env = readTrafficEnv(options.envFile);
  const input = await streamTraffic(files);
  const { digest, secrets } = await judgeStream(input.batches, { env, ...(partition ? { partition } : {}) }, () => input.notes);
  const judgement = judgementOf(digest, secrets, startedAt);
  if (!judgement.sawApi && !partition) {
    throw new HarnessError('TRAFFIC_NO_API_EXCHANGE', `${files.join(', ')} hold${files.length === 1 ? 's' : ''} no exchange with a documented operation of the API (paths under /v1/businesses/...); nothing to judge`);
  }
  const reportDir = reportDirSetting(options.reportDir);
  const paths = await writeJudgement(judgement, reportDir);
  if (partition) paths.push(await writePartitionFile(reportDir, { partition, inputs: files.map((f) => basename(f)), digest }));
  const which = partition ? ` (partition ${partition.index + 1}/${partition.count}: ${plural(digest.facts.judged, 'exchange')} of its businesses)` : '';
  io.out(`judged ${plural(partition ? digest.facts.judged : digest.facts.read, 'recorded exchange')} from ${plural(files.length, 'file')}${which}`);
  for (const line of closingLines(judgement, paths)) io.out(line);
  return judgement.exitCode;
}

/** `check --merge-reports DIR...`: the partitions of one traffic as one report; refuses a missing or repeated partition. */
async function mergeCommand(dirs: string[], options: CheckOptions, io: TrafficIo): Promise<number> {
  const startedAt = new Date();
  const env = readTrafficEnv(options.envFile);
  const parts = readPartitionFiles(dirs);
  const digest = mergePartitionFiles(parts);
  const judgement = judgementOf(digest, new SecretSet(env.secrets), startedAt);
  if (!judgement.sawApi) {
    throw new HarnessError('TRAFFIC_NO_API_EXCHANGE', `the partitions in ${dirs.join(', ')} hold no exchange with a documented operation of the API; nothing to judge`);
  }
  const paths = await writeJudgement(judgement, reportDirSetting(options.reportDir));
  io.out(`merged ${plural(parts.length, 'partition')}: judged ${plural(digest.facts.judged, 'recorded exchange')} from ${parts[0]!.file.inputs.join(', ')}`);
  for (const line of closingLines(judgement, paths)) io.out(line);
  return judgement.exitCode;
}

export interface ProxyCommandOptions {
  upstream: string;
  port?: number;
  untilIdleSeconds?: number;
  envFile?: string;
  reportDir?: string;
  /** Written once the proxy listens, removed when it ends. */
  pidFile?: string;
}

/**
 * Runs the proxy until SIGINT/SIGTERM, the process that started it going away, or --until-idle
 * seconds without traffic, then writes the reports.
 */
export async function proxyCommand(options: ProxyCommandOptions, io: TrafficIo): Promise<number> {
  const env = readTrafficEnv(options.envFile);
  const reportDir = reportDirSetting(options.reportDir);
  const { startProxy } = await import('../traffic/proxy.ts');
  const proxy = await startProxy({ upstream: options.upstream, ...(options.port !== undefined ? { port: options.port } : {}), env, onFinding: io.out });
  io.out(`conformance proxy: listening on ${proxy.url}, forwarding to ${new URL(options.upstream).origin}; point the client's API base URL here`);
  io.out(options.untilIdleSeconds !== undefined ? `stops after ${options.untilIdleSeconds} s without traffic, or on Ctrl-C` : 'stop it with Ctrl-C (SIGINT) or SIGTERM to write the reports');
  let removePidFile: () => void = () => undefined;
  try {
    if (options.pidFile !== undefined) removePidFile = writePidFile(options.pidFile);
    await untilStopped({ command: 'proxy', say: io.err, alsoWhen: idleStop(proxy, options.untilIdleSeconds) });
    return await writeProxyReports(proxy, reportDir, io);
  } finally {
    removePidFile();
  }
}

/** --until-idle: stop after that many seconds without traffic. */
function idleStop(proxy: RunningProxy, untilIdleSeconds: number | undefined): ((stop: () => void) => () => void) | undefined {
  if (untilIdleSeconds === undefined) return undefined;
  const limit = untilIdleSeconds * 1000;
  return (stop) => {
    const timer = setInterval(() => proxy.idleMs() >= limit && stop(), Math.min(1000, limit / 4));
    return () => clearInterval(timer);
  };
}

/** Stops the proxy and writes what it judged. */
async function writeProxyReports(proxy: RunningProxy, reportDir: string, io: TrafficIo): Promise<number> {
  const judgement = await proxy.stop();
  if (!judgement || !judgement.sawApi) {
    throw new HarnessError('TRAFFIC_NO_API_EXCHANGE', 'no call of a documented operation passed through the proxy; no report was written');
  }
  const paths = await writeJudgement(judgement, reportDir);
  io.out(`judged ${proxy.count()} exchange${proxy.count() === 1 ? '' : 's'} that passed through the proxy`);
  for (const line of closingLines(judgement, paths)) io.out(line);
  return judgement.exitCode;
}
