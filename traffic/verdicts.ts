// Collects what the rules find, per check: observations that held, violations with the
// exchanges that show them, notes (readings chosen, facts) and the client-side findings.
import type { Topic } from '../core/model.ts';
import type { RequirementId } from '../spec/requirement-ids.ts';
import type { Observed } from './context.ts';

/** One rule judged over the whole traffic, reported as one check. */
export interface CheckDef {
  /** `traffic/<topic>/<rule>` */
  id: string;
  topic: Topic;
  /** What is looked at and what must hold. */
  title: string;
  requirements: RequirementId[];
}

export interface Violation {
  requirement: RequirementId;
  expected: string;
  actual: string;
  exchanges: Observed[];
}

export interface CheckTally {
  def: CheckDef;
  observed: number;
  violations: Violation[];
  notes: Set<string>;
  advisories: Set<string>;
}

/** A finding about the client that made the traffic (reported apart, never failing the run). */
export interface ClientFinding {
  id: string;
  requirement: RequirementId;
  text: string;
  exchanges: Observed[];
}

export class Verdicts {
  readonly tallies = new Map<string, CheckTally>();
  readonly client: ClientFinding[] = [];

  constructor(defs: readonly CheckDef[]) {
    for (const def of defs) this.tallies.set(def.id, { def, observed: 0, violations: [], notes: new Set(), advisories: new Set() });
  }

  private tally(id: string): CheckTally {
    const t = this.tallies.get(id);
    if (!t) throw new Error(`traffic: no check ${id} is declared`);
    return t;
  }

  /** The rule applied to one more exchange (or group) and held. */
  pass(id: string): void {
    this.tally(id).observed += 1;
  }

  fail(id: string, requirement: RequirementId, expected: string, actual: string, exchanges: Observed[]): void {
    const t = this.tally(id);
    t.observed += 1;
    t.violations.push({ requirement, expected, actual, exchanges });
  }

  /** Applies the rule: `violated` is the actual value when it broke, undefined when it held. */
  judge(id: string, requirement: RequirementId, expected: string, violated: string | undefined, exchanges: Observed[]): void {
    if (violated === undefined) this.pass(id);
    else this.fail(id, requirement, expected, violated, exchanges);
  }

  note(id: string, text: string): void {
    this.tally(id).notes.add(text);
  }

  /** A finding beyond the document: reported, never failing. */
  advise(id: string, text: string): void {
    this.tally(id).advisories.add(text);
  }

  clientFinding(id: string, requirement: RequirementId, text: string, exchanges: Observed[]): void {
    this.client.push({ id, requirement, text, exchanges });
  }
}
