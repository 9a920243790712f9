// The ledger of fixtures runs have spent on a host. Some checks use a fixture up (a full run
// deactivates a webhook endpoint, and the document offers no way to make a new one), so a second
// run against the same sandbox would meet a spent fixture and fail for "you ran me before". The
// ledger remembers what this tool spent, where and when; a run takes the first configured fixture
// it has not seen spent and says which, and a check that meets one spent anyway can tell that
// precondition from a defect. One JSON object a line, appended (concurrent runs append whole
// lines), in CONFORMANCE_STATE_DIR: base URL (no credentials, no query), business, fixture, id,
// time, seed and run id. Never a secret. The embedded reference is fresh every run: no ledger.
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export const LEDGER_FILE = 'spent-fixtures.jsonl';

/** Fixtures a run uses up, by the name of the fixture a check reads (core/model.ts Fixtures). */
export type SpendableFixture = 'webhookEndpointId';

export interface SpentFixture {
  baseUrl: string;
  businessId: string;
  fixture: SpendableFixture;
  id: string;
  /** When it was spent (ISO 8601). */
  at: string;
  seed: number;
  runId: string;
  /** The check whose request spent it. */
  check?: string;
}

/** Where a run is and who it is: what every entry it records carries. */
export interface LedgerScope {
  stateDir: string;
  baseUrl: string;
  businessId: string;
  seed: number;
  runId: string;
}

export const ledgerPath = (stateDir: string) => join(stateDir, LEDGER_FILE);

/** The host as the ledger keys it: scheme, host, port and path, never credentials or a query. */
export function hostKey(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    return `${url.protocol}//${url.host}${url.pathname}`.replace(/\/+$/, '');
  } catch {
    return baseUrl.replace(/\/+$/, '');
  }
}

function isEntry(value: unknown): value is SpentFixture {
  const v = value as Partial<SpentFixture> | null;
  return typeof v === 'object' && v !== null && typeof v.baseUrl === 'string' && typeof v.businessId === 'string' && typeof v.id === 'string' && typeof v.fixture === 'string';
}

/** What the ledger says this tool spent of `fixture` on this host and business (oldest first). */
export function readSpent(scope: Pick<LedgerScope, 'stateDir' | 'baseUrl' | 'businessId'>, fixture: SpendableFixture): SpentFixture[] {
  let text: string;
  try {
    text = readFileSync(ledgerPath(scope.stateDir), 'utf8');
  } catch {
    return [];
  }
  const host = hostKey(scope.baseUrl);
  const entries: SpentFixture[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const entry: unknown = JSON.parse(line);
      // A line cut short (a run killed mid-write) or edited by hand is passed over.
      if (isEntry(entry) && entry.baseUrl === host && entry.businessId === scope.businessId && entry.fixture === fixture) entries.push(entry);
    } catch {
      continue;
    }
  }
  return entries;
}

/** The ledger's record of `id`, if this tool spent it on this host. */
export function spentEntry(scope: Pick<LedgerScope, 'stateDir' | 'baseUrl' | 'businessId'>, fixture: SpendableFixture, id: string): SpentFixture | undefined {
  return readSpent(scope, fixture).find((e) => e.id === id);
}

/**
 * Records that this run spent `id`. Returns why it could not be recorded, if it could not (the
 * caller reports it: a later run would then meet the fixture spent and judge it as unknown).
 */
export function recordSpent(scope: LedgerScope, fixture: SpendableFixture, id: string, check?: string): string | undefined {
  const entry: SpentFixture = {
    baseUrl: hostKey(scope.baseUrl),
    businessId: scope.businessId,
    fixture,
    id,
    at: new Date().toISOString(),
    seed: scope.seed,
    runId: scope.runId,
    ...(check !== undefined ? { check } : {}),
  };
  try {
    mkdirSync(scope.stateDir, { recursive: true });
    appendFileSync(ledgerPath(scope.stateDir), `${JSON.stringify(entry)}\n`);
    return undefined;
  } catch (error) {
    return `the ledger ${ledgerPath(scope.stateDir)} could not be written (${(error as { code?: string }).code ?? (error as Error).message})`;
  }
}

/** "run R at T (seed S, webhooks/deactivate-204)": which run spent it. */
export function spentBy(entry: SpentFixture): string {
  return `run ${entry.runId} at ${entry.at} (seed ${entry.seed}${entry.check ? `, ${entry.check}` : ''})`;
}

/** The ledger file as a user would type it: relative to the working directory when inside it. */
export function ledgerShown(stateDir: string, cwd = process.cwd()): string {
  const path = ledgerPath(stateDir);
  const rel = relative(cwd, path);
  return rel !== '' && !rel.startsWith('..') ? rel : path;
}

/** What a run takes of a configured list of spendable fixtures. */
export interface FixtureChoice {
  /** The fixture this run spends; undefined when every one is spent. */
  taken?: string;
  /** The line the run prints about it. */
  line: string;
  /** Every one spent: the reason the checks that need one skip for (a precondition). */
  usedUp?: string;
}

/** The first of `ids` the ledger has not seen spent, or, when every one is, who spent each and what to set. */
export function chooseFixture(variable: string, ids: string[], spent: SpentFixture[], ledger: string): FixtureChoice {
  const byId = new Map(spent.map((e) => [e.id, e]));
  const taken = ids.find((id) => !byId.has(id));
  const earlier = ids.filter((id) => byId.has(id));
  if (taken !== undefined) {
    const position = ids.length > 1 ? `the ${ordinal(ids.indexOf(taken) + 1)} of ${ids.length} in ${variable}` : variable;
    const before = earlier.length > 0 ? `; ${earlier.length} spent by earlier runs, in ${ledger}` : '';
    return { taken, line: `spends ${taken}, ${position}${before}` };
  }
  const who = ids.map((id) => `${id} by ${spentBy(byId.get(id)!)}`).join('; ');
  const usedUp =
    `every ${variable} was spent by an earlier run of this tool on this host: ${who}. ` +
    `Set ${variable} to an active one not yet spent (a comma-separated list serves one run each), ` +
    `or remove those lines from ${ledger} if the host made them active again`;
  return { line: `every ${variable} spent by earlier runs (${ledger}); the checks that need one skip`, usedUp };
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th';
  return `${n}${suffix}`;
}
