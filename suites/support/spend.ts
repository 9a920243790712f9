// What a check calls when its request uses a fixture up on a host (a webhook endpoint deactivated),
// and what it asks when a fixture answers as spent: harness/ledger.ts keeps the record, so the next
// run takes a fresh one, and a 404 for one this tool spent is told from a defect. Against the
// embedded reference (fresh every run) there is no ledger: both are no-ops.
import { recordSpent, spentBy, spentEntry, type LedgerScope, type SpendableFixture, type SpentFixture } from '../../harness/ledger.ts';
import type { CheckContext } from './check.ts';

function scopeOf(t: CheckContext): LedgerScope | undefined {
  const { target, settings, fixtures } = t.config;
  if (target.embedded || settings.stateDir === undefined || fixtures.businessId === undefined) return undefined;
  return { stateDir: settings.stateDir, baseUrl: target.baseUrl, businessId: fixtures.businessId, seed: settings.seed, runId: settings.runId };
}

/** Records that this run's request spent `id` (call it once the answer shows it spent, e.g. a 2xx to a DELETE). */
export function spendFixture(t: CheckContext, fixture: SpendableFixture, id: string): void {
  const scope = scopeOf(t);
  if (!scope) return;
  const failed = recordSpent(scope, fixture, id, t.checkId);
  if (failed) t.note(`${id} was spent, but ${failed}: a later run would meet it spent and judge that as a finding`);
}

/** The ledger's record of `id` spent by this tool on this host (this run or an earlier one), if any. */
export function spentRecord(t: CheckContext, fixture: SpendableFixture, id: string): SpentFixture | undefined {
  const scope = scopeOf(t);
  return scope ? spentEntry(scope, fixture, id) : undefined;
}

/** The precondition a check skips for when its fixture was spent: by whom, and what to set. */
export function spentReason(record: SpentFixture, variable: string): string {
  return `${record.id} was already spent on this host by this tool, by ${spentBy(record)}; set ${variable} to active ones not yet spent (comma-separated, one per run)`;
}
