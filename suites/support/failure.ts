import type { RequirementId } from '../../spec/requirement-ids.ts';
import type { Exchange, SkipKind } from '../../core/model.ts';

/** A broken rule of the document. The check wrapper copies it into the test's meta. */
export class ConformanceFailure extends Error {
  override readonly name = 'ConformanceFailure';
  readonly requirement: RequirementId;
  readonly expected: string;
  readonly actual: string;
  readonly exchanges: Exchange[];
  /** The assertion site (suites/support/sites.ts) that failed. */
  readonly site: string | undefined;
  /** For a property: the seed, path and value that replay the failing case. */
  readonly counterexample: string | undefined;
  constructor(args: { requirement: RequirementId; expected: string; actual: string; exchanges?: Exchange[]; site?: string; counterexample?: string }) {
    super(`Received: ${args.actual} / Expected: ${args.expected} (${args.requirement})`);
    this.requirement = args.requirement;
    this.expected = args.expected;
    this.actual = args.actual;
    this.exchanges = args.exchanges ?? [];
    this.site = args.site;
    this.counterexample = args.counterexample;
  }
}

/** Thrown by `t.skip(reason, kind)`; the wrapper turns it into a vitest skip with the reason and kind kept. */
export class CheckSkipped extends Error {
  override readonly name = 'CheckSkipped';
  readonly kind: SkipKind;
  constructor(reason: string, kind: SkipKind = 'precondition') {
    super(reason);
    this.kind = kind;
  }
}
