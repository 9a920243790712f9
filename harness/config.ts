// The run's configuration: flags > environment > .env (read with dotenv's `parse`, never written
// into process.env), checked up front. Every problem is a HarnessError naming the variable (and
// the topics that need it), so a run that cannot be made stops before it sends anything.
import { randomBytes, randomInt } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { didYouMean } from './closest.ts';
import { HarnessError } from './errors.ts';
import { REDACTED, redactText } from './redact.ts';
import { TOPICS } from '../core/model.ts';
import type { AppCredentials, Fixtures, ListingParamNames, Profile, RunSettings, SuiteConfig, Target, Topic } from '../core/model.ts';
import { chooseFixture, ledgerShown, readSpent } from './ledger.ts';
import { VARIABLES, type Variable } from '../core/variables.ts';

const VARIABLE_NAMES = new Set(VARIABLES.map((v) => v.name));
/** Values never shown: client secrets, a configured token. */
const SECRET_VARIABLES = VARIABLES.filter((v) => v.kind === 'secret').map((v) => v.name);

export interface RunConfig {
  /** The host under test; undefined when the embedded reference is the target (the runner starts it). */
  target?: Target;
  apps: { primary?: AppCredentials; limited?: AppCredentials; other?: AppCredentials };
  fixtures: Fixtures;
  params: ListingParamNames;
  settings: RunSettings;
  topics: Topic[];
  reportDir: string;
  /** Named defects of the embedded reference. */
  defects: string[];
  /** Whether the seed was given (flag or variable) or drawn at random. */
  seedGiven: boolean;
  /** `i/n`: run only that share of the topic files. */
  shard?: string;
  /** The .env file read, if any. */
  envFile?: string;
  /** Fixtures configured but every one spent on this host (harness/ledger.ts), with the skip reason. */
  usedUp?: SuiteConfig['usedUp'];
  /** What the run says about the fixtures it takes from a list (printed with its opening lines). */
  fixtureLines?: string[];
}

/** Flags of `conformance run`; each beats its variable. */
export interface RunFlags {
  topic?: string;
  profile?: string;
  envFile?: string;
  reportDir?: string;
  seed?: string;
  runs?: string;
  defects?: string;
  shard?: string;
  rate?: string;
  /** `--check` / `--exclude-check` globs over check ids and requirement ids. */
  checks?: string[];
  excludeChecks?: string[];
  maxFailures?: string;
  /** `--header 'Name: value'`, each an extra header of every API request. */
  headers?: string[];
}

/** Flags that stand for a variable (single string values). */
type VariableFlag = 'topic' | 'profile' | 'reportDir' | 'seed' | 'runs' | 'defects' | 'rate';

const FLAG_OF: Record<string, VariableFlag> = {
  CONFORMANCE_TOPICS: 'topic',
  CONFORMANCE_PROFILE: 'profile',
  CONFORMANCE_REPORT_DIR: 'reportDir',
  CONFORMANCE_SEED: 'seed',
  CONFORMANCE_RUNS: 'runs',
  CONFORMANCE_REFERENCE_DEFECTS: 'defects',
  CONFORMANCE_RATE: 'rate',
};

const FLAG_NAME: Record<VariableFlag, string> = {
  topic: '--topic',
  profile: '--profile',
  reportDir: '--report-dir',
  seed: '--seed',
  runs: '--runs',
  defects: '--defects',
  rate: '--rate',
};

const E164 = /^\+[1-9]\d{7,14}$/;

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** Settings that only mean something against a host: given without a base URL, they are a mistake. */
const HOST_VARIABLES = ['CONFORMANCE_TOKEN_URL', 'CONFORMANCE_CLIENT_ID', 'CONFORMANCE_CLIENT_SECRET'];

/** Run ids go into X-Request-Id and idempotency keys: only characters their patterns allow. */
export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `conf-${stamp}-${randomBytes(3).toString('hex')}`;
}

function topicsNeeding(variable: Variable, selected: Topic[]): Topic[] {
  return variable.topics === 'all' ? selected : selected.filter((t) => (variable.topics as Topic[]).includes(t));
}

export function loadConfig(flags: RunFlags = {}, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): RunConfig {
  try {
    return readConfig(flags, env, cwd);
  } catch (error) {
    // A secret pasted into the wrong variable must not come back in the message.
    if (error instanceof HarnessError) error.message = redactText(error.message, configuredSecrets(flags, env, cwd));
    throw error;
  }
}

/** The client secrets the configuration holds, wherever they are set. */
function configuredSecrets(flags: RunFlags, env: NodeJS.ProcessEnv, cwd: string): string[] {
  let file: Record<string, string> = {};
  try {
    file = readEnvFile(flags.envFile, cwd).values;
  } catch {
    // An unreadable file holds no secret that could be shown.
  }
  return SECRET_VARIABLES.flatMap((name) => [env[name], file[name]]).filter((v): v is string => typeof v === 'string' && v.trim().length > 0).map((v) => v.trim());
}

/** Reads one variable's value (flag > environment > env file) and refuses it with its source named. */
interface ValueReader {
  get(name: string): string | undefined;
  invalid(name: string, message: string): never;
  url(name: string): string | undefined;
  integer(name: string, fallback: number): number;
  list(name: string): string[] | undefined;
  /** Where a value came from, for messages: the flag and/or the variable. */
  source(name: string): string;
}

function valueReader(flags: RunFlags, env: NodeJS.ProcessEnv, dotenv: Record<string, string>): ValueReader {
  const reader: ValueReader = {
    source(name) {
      const flag = FLAG_OF[name];
      return flag && flags[flag] !== undefined ? `${FLAG_NAME[flag]} (${name})` : name;
    },
    get(name) {
      const flag = FLAG_OF[name];
      const candidates = [flag ? flags[flag] : undefined, env[name], dotenv[name]];
      for (const value of candidates) {
        if (value !== undefined && value.trim() !== '') return value.trim();
      }
      return undefined;
    },
    invalid(name, message) {
      throw new HarnessError('CONF_INVALID_VALUE', `${reader.source(name)} ${message}`);
    },
    url(name) {
      const value = reader.get(name);
      if (value === undefined) return undefined;
      let parsed: URL;
      try {
        parsed = new URL(value);
      } catch {
        // Whatever stands before an @ may be credentials: never echoed.
        return reader.invalid(name, `is not a URL (got ${JSON.stringify(value.replace(/\/\/.*@/, '//<redacted>@'))})`);
      }
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') reader.invalid(name, `must be an http or https URL (got ${parsed.protocol})`);
      if (parsed.username || parsed.password) reader.invalid(name, 'must not carry credentials in the URL');
      if (name === 'CONFORMANCE_BASE_URL' && /\/v1\/*$/.test(parsed.pathname)) {
        reader.invalid(name, `ends in /v1, but the run appends /v1/... itself (give ${parsed.origin}${parsed.pathname.replace(/\/v1\/*$/, '')})`);
      }
      return value;
    },
    integer(name, fallback) {
      const value = reader.get(name);
      if (value === undefined) return fallback;
      const [min, max] = VARIABLES.find((v) => v.name === name)?.range ?? [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
      if (!/^-?\d+$/.test(value)) return reader.invalid(name, `must be a whole number (got ${JSON.stringify(value)})`);
      const n = Number(value);
      if (n < min || n > max) return reader.invalid(name, `must be between ${min} and ${max} (got ${n})`);
      return n;
    },
    list(name) {
      return reader
        .get(name)
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    },
  };
  return reader;
}

/** The selected topics. An empty --topic is a mistake, not "all topics". */
function readTopics(read: ValueReader, flags: RunFlags): Topic[] {
  if (flags.topic !== undefined && flags.topic.trim() === '') read.invalid('CONFORMANCE_TOPICS', 'is empty; name topics, or leave --topic out for all');
  const values = read.list('CONFORMANCE_TOPICS');
  if (!values) return [...TOPICS];
  const unknown = values.filter((t) => !(TOPICS as readonly string[]).includes(t));
  if (unknown.length > 0) {
    throw new HarnessError(
      'CONF_UNKNOWN_TOPIC',
      `${read.source('CONFORMANCE_TOPICS')} names unknown topic${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; known topics: ${TOPICS.join(', ')}`,
    );
  }
  const topics = TOPICS.filter((t) => values.includes(t));
  if (topics.length === 0) read.invalid('CONFORMANCE_TOPICS', 'selects no topic');
  return topics;
}

function readSettings(read: ValueReader, flags: RunFlags): RunSettings {
  const defaultOf = (name: string): number => Number(VARIABLES.find((v) => v.name === name)?.default);
  const profile = read.get('CONFORMANCE_PROFILE') ?? 'full';
  if (profile !== 'full' && profile !== 'safe') read.invalid('CONFORMANCE_PROFILE', `must be full or safe (got ${JSON.stringify(profile)})`);
  const settings: RunSettings = {
    runId: newRunId(),
    profile: profile as Profile,
    seed: read.integer('CONFORMANCE_SEED', randomInt(0, 2 ** 31)),
    runs: read.integer('CONFORMANCE_RUNS', defaultOf('CONFORMANCE_RUNS')),
    maxRequests: read.integer('CONFORMANCE_MAX_REQUESTS', defaultOf('CONFORMANCE_MAX_REQUESTS')),
    concurrency: read.integer('CONFORMANCE_CONCURRENCY', defaultOf('CONFORMANCE_CONCURRENCY')),
    timeoutMs: read.integer('CONFORMANCE_TIMEOUT_MS', defaultOf('CONFORMANCE_TIMEOUT_MS')),
    settleTimeoutMs: read.integer('CONFORMANCE_SETTLE_TIMEOUT_MS', defaultOf('CONFORMANCE_SETTLE_TIMEOUT_MS')),
    exchangeLogPath: '',
  };
  const sandbox = read.get('CONFORMANCE_SANDBOX');
  if (sandbox !== undefined) {
    if (!/^(true|false|1|0)$/i.test(sandbox)) read.invalid('CONFORMANCE_SANDBOX', `must be true or false (got ${JSON.stringify(sandbox)})`);
    settings.sandbox = /^(true|1)$/i.test(sandbox);
  }
  const rateText = read.get('CONFORMANCE_RATE');
  if (rateText !== undefined) {
    const m = /^(\d+(?:\.\d+)?)\s*(?:\/\s*s)?$/.exec(rateText);
    const rate = m ? Number(m[1]) : Number.NaN;
    if (!(rate > 0)) read.invalid('CONFORMANCE_RATE', `must be a positive number of requests per second like 5 or 5/s (got ${JSON.stringify(rateText)})`);
    settings.rate = rate;
  }
  settings.exchangeLogPath = join(tmpdir(), `conformance-${settings.runId}`, 'exchanges.jsonl');
  applyRunFlags(settings, flags);
  return settings;
}

/** Variables that go in pairs: one without the other is a mistake. */
const PAIRS: Array<[string, string]> = [
  ['CONFORMANCE_LIMITED_CLIENT_ID', 'CONFORMANCE_LIMITED_CLIENT_SECRET'],
  ['CONFORMANCE_OTHER_CLIENT_ID', 'CONFORMANCE_OTHER_CLIENT_SECRET'],
  ['CONFORMANCE_EXPIRED_CURSOR', 'CONFORMANCE_EXPIRED_CURSOR_BULK_ID'],
  ['CONFORMANCE_TEMPLATE_PLACEHOLDERS', 'CONFORMANCE_TEMPLATE_ID'],
];

/** Target, applications and fixtures of a run against a host (CONFORMANCE_BASE_URL set). */
function readHost(read: ValueReader, config: RunConfig, baseUrl: string, tokenUrl: string | undefined): void {
  if (config.defects.length > 0) {
    read.invalid('CONFORMANCE_REFERENCE_DEFECTS', 'applies only to the embedded reference (unset CONFORMANCE_BASE_URL)');
  }
  const missing = VARIABLES.filter((v) => v.requiredWithHost && read.get(v.name) === undefined);
  if (missing.length > 0) {
    const names = missing.map((v) => v.name).join(', ');
    throw new HarnessError(
      'CONF_MISSING_VARIABLE',
      `${names} ${missing.length > 1 ? 'are' : 'is'} not set; with CONFORMANCE_BASE_URL set, ${missing.length > 1 ? 'they are' : 'it is'} needed by every topic (${topicsNeeding(missing[0]!, config.topics).join(', ')})`,
    );
  }
  for (const [a, b] of PAIRS) {
    if ((read.get(a) === undefined) !== (read.get(b) === undefined)) {
      const [set, unset] = read.get(a) === undefined ? [b, a] : [a, b];
      const needing = topicsNeeding(VARIABLES.find((v) => v.name === unset)!, config.topics);
      throw new HarnessError(
        'CONF_MISSING_VARIABLE',
        `${unset} is not set but ${set} is; they go together (needed by ${needing.length > 0 ? needing.join(', ') : 'topics not selected'})`,
      );
    }
  }
  config.target = {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    tokenUrl: tokenUrl!, // HOST_VARIABLES were checked above
    audience: read.get('CONFORMANCE_AUDIENCE') ?? 'service-external-api',
    embedded: false,
  };
  config.apps.primary = { clientId: read.get('CONFORMANCE_CLIENT_ID')!, clientSecret: read.get('CONFORMANCE_CLIENT_SECRET')! };
  const limitedId = read.get('CONFORMANCE_LIMITED_CLIENT_ID');
  const limitedSecret = read.get('CONFORMANCE_LIMITED_CLIENT_SECRET');
  if (limitedId && limitedSecret) config.apps.limited = { clientId: limitedId, clientSecret: limitedSecret };
  const otherId = read.get('CONFORMANCE_OTHER_CLIENT_ID');
  const otherSecret = read.get('CONFORMANCE_OTHER_CLIENT_SECRET');
  if (otherId && otherSecret) config.apps.other = { clientId: otherId, clientSecret: otherSecret };

  // Identifier fixtures are UUIDs (4.0): a typo here would only show as puzzling failures later.
  for (const variable of VARIABLES) {
    if (!variable.sets || !('fixture' in variable.sets)) continue;
    const value = variable.kind === 'list' || variable.kind === 'uuids' ? read.list(variable.name) : read.get(variable.name);
    if (value === undefined) continue;
    if (variable.kind === 'uuid' && !UUID.test(value as string)) read.invalid(variable.name, `must be a UUID (got ${JSON.stringify(value)})`);
    for (const item of variable.kind === 'uuids' ? (value as string[]) : []) {
      if (!UUID.test(item)) read.invalid(variable.name, `must list UUIDs, comma-separated (got ${JSON.stringify(item)})`);
    }
    (config.fixtures as Record<string, unknown>)[variable.sets.fixture] = value;
  }
}

function readConfig(flags: RunFlags, env: NodeJS.ProcessEnv, cwd: string): RunConfig {
  const fileValues = readEnvFile(flags.envFile, cwd);
  const dotenv = fileValues.values;
  refuseUnknownNames(env, dotenv, fileValues.label);
  const read = valueReader(flags, env, dotenv);

  // Topics first: the messages about missing variables name them.
  const topics = readTopics(read, flags);
  const seedGiven = read.get('CONFORMANCE_SEED') !== undefined;
  const settings = readSettings(read, flags);
  const params: ListingParamNames = {
    limit: read.get('CONFORMANCE_PARAM_LIMIT') ?? 'limit',
    cursor: read.get('CONFORMANCE_PARAM_CURSOR') ?? 'cursor',
    status: read.get('CONFORMANCE_PARAM_STATUS') ?? 'status',
    to: read.get('CONFORMANCE_PARAM_TO') ?? 'to',
  };
  for (const number of read.list('CONFORMANCE_RECIPIENTS') ?? []) {
    if (!E164.test(number)) read.invalid('CONFORMANCE_RECIPIENTS', `must list E.164 numbers like +4915112345678 (got ${JSON.stringify(number)})`);
  }
  const shard = flags.shard?.trim();
  if (shard !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(shard);
    if (!m || Number(m[1]) < 1 || Number(m[1]) > Number(m[2])) {
      throw new HarnessError('CONF_INVALID_VALUE', `--shard must be i/n with 1 <= i <= n (got ${JSON.stringify(shard)})`);
    }
  }
  const baseUrl = read.url('CONFORMANCE_BASE_URL');
  // Read (and checked) in either mode: a malformed token URL is refused even when unused.
  const tokenUrl = read.url('CONFORMANCE_TOKEN_URL');

  const config: RunConfig = {
    apps: {},
    fixtures: {},
    params,
    settings,
    topics,
    reportDir: resolve(cwd, read.get('CONFORMANCE_REPORT_DIR') ?? 'reports'),
    defects: read.list('CONFORMANCE_REFERENCE_DEFECTS') ?? [],
    seedGiven,
    ...(shard !== undefined ? { shard } : {}),
    ...(fileValues.path ? { envFile: fileValues.path } : {}),
  };
  if (baseUrl !== undefined) {
    readHost(read, config, baseUrl, tokenUrl);
    config.settings.stateDir = resolve(cwd, read.get('CONFORMANCE_STATE_DIR') ?? '.conformance');
    takeSpendableFixtures(config, cwd);
    return config;
  }
  // Only an unset base URL selects the embedded reference: an empty one (a CI secret that did
  // not resolve) or host settings without it would otherwise pass a gate against the wrong target.
  if (env.CONFORMANCE_BASE_URL !== undefined || dotenv.CONFORMANCE_BASE_URL !== undefined) {
    read.invalid('CONFORMANCE_BASE_URL', 'is set but empty; set it to the API host, or unset it to run against the embedded reference');
  }
  const hostOnly = HOST_VARIABLES.filter((name) => read.get(name) !== undefined);
  if (hostOnly.length > 0) {
    throw new HarnessError(
      'CONF_MISSING_VARIABLE',
      `CONFORMANCE_BASE_URL is not set but ${hostOnly.join(', ')} ${hostOnly.length > 1 ? 'are' : 'is'}; a run against a host needs its URL (every topic), and the embedded reference takes none of these`,
    );
  }
  return config; // embedded: the runner takes the reference's fixtures
}

/**
 * Against a host: the webhook endpoint this run spends, the first of CONFORMANCE_WEBHOOK_ENDPOINT_ID
 * the ledger has not seen spent (harness/ledger.ts), and the line that says which; when every one
 * is spent, none, and the precondition the checks that need one skip for.
 */
function takeSpendableFixtures(config: RunConfig, cwd: string): void {
  const ids = config.fixtures.webhookEndpointIds;
  const { stateDir } = config.settings;
  if (!ids || ids.length === 0 || !stateDir || !config.target || !config.fixtures.businessId) return;
  const scope = { stateDir, baseUrl: config.target.baseUrl, businessId: config.fixtures.businessId };
  const choice = chooseFixture('CONFORMANCE_WEBHOOK_ENDPOINT_ID', ids, readSpent(scope, 'webhookEndpointId'), ledgerShown(stateDir, cwd));
  if (choice.taken !== undefined) config.fixtures.webhookEndpointId = choice.taken;
  if (choice.usedUp !== undefined) config.usedUp = { webhookEndpointId: choice.usedUp };
  // Only a full run spends one (profile safe sends no DELETE).
  if (config.settings.profile === 'full') config.fixtureLines = [`webhook endpoint: ${choice.line}`];
}

/** Reads --env-file (must exist) or ./.env (optional). Values never reach process.env. */
function readEnvFile(flagPath: string | undefined, cwd: string): { path?: string; label: string; values: Record<string, string> } {
  const path = resolve(cwd, flagPath ?? '.env');
  const label = flagPath !== undefined ? `--env-file ${flagPath}` : '.env';
  if (!existsSync(path)) {
    if (flagPath !== undefined) throw new HarnessError('CONF_ENV_FILE', `${label}: no such file`);
    return { label, values: {} };
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new HarnessError('CONF_ENV_FILE', `${label}: cannot be read (${(error as Error).message})`);
  }
  checkEnvFileLines(text, label);
  return { path, label, values: parseDotenv(text) };
}

const ASSIGNMENT = /^\s*(?:export\s+)?[A-Za-z_][A-Za-z0-9_.-]*\s*=\s*(.*)$/;

/**
 * dotenv skips a line it cannot read without a word, so `CONFORMANCE_PROFILE safe` would silently
 * run the full profile: every line must be a comment, blank, or NAME=value (quoted values may span
 * lines). The line itself is never echoed: it may hold a secret.
 */
function checkEnvFileLines(text: string, label: string): void {
  const lines = text.split(/\r?\n/);
  let openQuote: string | undefined;
  for (const [index, line] of lines.entries()) {
    if (openQuote) {
      if (line.includes(openQuote)) openQuote = undefined;
      continue;
    }
    if (/^\s*(#.*)?$/.test(line)) continue;
    const value = ASSIGNMENT.exec(line)?.[1];
    if (value === undefined) {
      const name = /^\s*([A-Za-z_][A-Za-z0-9_]*)/.exec(line)?.[1];
      throw new HarnessError(
        'CONF_ENV_FILE',
        `${label} line ${index + 1} is not a variable (NAME=value)${name ? `: it starts with ${name.slice(0, 60)}` : ''}`,
      );
    }
    const quote = /^(["'`])/.exec(value)?.[1];
    if (quote && !value.slice(1).includes(quote)) openQuote = quote;
  }
}

/** A CONFORMANCE_* name that is no variable is a typo until proven otherwise: refused, with the nearest name. */
function refuseUnknownNames(env: NodeJS.ProcessEnv, file: Record<string, string>, fileLabel: string): void {
  const sources: Array<[string, string[]]> = [
    ['the environment', Object.keys(env)],
    [fileLabel, Object.keys(file)],
  ];
  for (const [where, names] of sources) {
    for (const name of names) {
      if (!/^CONFORMANCE_/i.test(name) || VARIABLE_NAMES.has(name)) continue;
      throw new HarnessError(
        'CONF_UNKNOWN_VARIABLE',
        `${name} (in ${where}) is not a variable of the checker${didYouMean(name, VARIABLE_NAMES)} (every variable: .env.example)`,
      );
    }
  }
}

/**
 * What the configuration holds that must never be shown: client secrets, a configured token, and
 * the value of an extra header whose name looks like a credential.
 */
export function configSecrets(apps: RunConfig['apps'], fixtures: Fixtures = {}, settings?: Pick<RunSettings, 'extraHeaders'>): string[] {
  const headers = Object.entries(settings?.extraHeaders ?? {}).filter(([name]) => CREDENTIAL_HEADER.test(name)).map(([, value]) => value);
  return [apps.primary?.clientSecret, apps.limited?.clientSecret, apps.other?.clientSecret, fixtures.expiredToken, ...headers].filter((s): s is string => Boolean(s));
}

/** Header names that carry credentials: their values are secrets. */
export const CREDENTIAL_HEADER = /auth|token|key|secret|cookie|session|signature|credential|password|pass/i;
/** Headers the run sets itself: an extra header may not replace them. */
const OWN_HEADERS = new Set(['authorization', 'host', 'content-length', 'content-type', 'x-request-id', 'idempotency-key', 'accept', 'transfer-encoding', 'connection']);

/** --check, --exclude-check, --max-failures and --header into the run's settings. */
function applyRunFlags(settings: RunSettings, flags: RunFlags): void {
  const globs = (flag: string, values: string[] | undefined): string[] => {
    const list = (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
    for (const glob of list) {
      if (!/^[A-Za-z0-9*?/_.-]+$/.test(glob)) throw new HarnessError('CONF_INVALID_VALUE', `${flag} takes check ids like wallet/reserved-zero or requirement ids like WAL-*, with * and ? as wildcards (got ${JSON.stringify(glob)})`);
    }
    if (values !== undefined && list.length === 0) throw new HarnessError('CONF_INVALID_VALUE', `${flag} is empty`);
    return list;
  };
  const include = globs('--check', flags.checks);
  const exclude = globs('--exclude-check', flags.excludeChecks);
  if (include.length > 0 || exclude.length > 0) settings.selection = { include, exclude };
  if (flags.maxFailures !== undefined) {
    const text = flags.maxFailures.trim();
    if (!/^\d+$/.test(text) || Number(text) < 1) throw new HarnessError('CONF_INVALID_VALUE', `--max-failures must be a whole number of at least 1 (got ${JSON.stringify(text)})`);
    settings.maxFailures = Number(text);
  }
  for (const header of flags.headers ?? []) {
    const colon = header.indexOf(':');
    const name = colon > 0 ? header.slice(0, colon).trim() : '';
    // The value is never echoed: it may be a credential.
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new HarnessError('CONF_INVALID_VALUE', `--header must be 'Name: value' with a valid header name${name ? ` (got the name ${JSON.stringify(name.slice(0, 40))})` : ''}`);
    if (OWN_HEADERS.has(name.toLowerCase())) throw new HarnessError('CONF_INVALID_VALUE', `--header ${name}: the run sets this header itself`);
    const value = header.slice(colon + 1).trim();
    if (/[\r\n]/.test(value)) throw new HarnessError('CONF_INVALID_VALUE', `--header ${name}: the value may not span lines`);
    settings.extraHeaders = { ...settings.extraHeaders, [name.toLowerCase()]: value };
  }
}

/**
 * The report directory alone, for commands that read reports rather than run checks (baseline,
 * verify-certificate): `--report-dir` > environment > .env, like every setting.
 */
export function reportDirSetting(flag: string | undefined, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  if (flag !== undefined && flag.trim() !== '') return resolve(cwd, flag.trim());
  const file = readEnvFile(undefined, cwd);
  refuseUnknownNames(env, file.values, file.label);
  const value = [env.CONFORMANCE_REPORT_DIR, file.values.CONFORMANCE_REPORT_DIR].find((v) => v !== undefined && v.trim() !== '');
  return resolve(cwd, value?.trim() ?? 'reports');
}

/** What points a run at a running reference (`serve`): its URLs, credentials and fixtures. */
export interface ReferencePoint {
  baseUrl: string;
  tokenUrl: string;
  audience: string;
  apps: { primary: AppCredentials; limited?: AppCredentials; other?: AppCredentials };
  fixtures: Fixtures;
}

/** The CONFORMANCE_*=value lines for a reference, one per variable of VARIABLES it has a value for. */
export function envLinesFor(point: ReferencePoint): string[] {
  const lines: string[] = [];
  for (const variable of VARIABLES) {
    const sets = variable.sets;
    if (!sets) continue;
    const value: unknown =
      'fixture' in sets ? point.fixtures[sets.fixture] : 'app' in sets ? point.apps[sets.app]?.[sets.part] : point[sets.target];
    if (value === undefined) continue;
    lines.push(`${variable.name}=${Array.isArray(value) ? value.join(',') : String(value)}`);
  }
  return lines;
}

/** The same lines with every secret value masked, for a terminal or a CI log. */
export function maskSecretLines(lines: string[]): string[] {
  return lines.map((line) => {
    const name = line.slice(0, line.indexOf('='));
    return SECRET_VARIABLES.includes(name) ? `${name}=${REDACTED}` : line;
  });
}
