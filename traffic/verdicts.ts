// Collects what the rules find, per check, in bounded memory whatever the length of the traffic:
// how many exchanges (or groups) each rule judged, how many broke which requirement, the first
// violation and the first of a MUST (with the exchanges that show them, for evidence), a bounded
// sample of the rest, notes and advisories, and the client-side findings. Every entry carries the
// place in the traffic where the judge would have found it (`at`), so the first violation is the
// same whether a rule decides at once, decides later, or the traffic was judged in partitions.
import type { Topic } from '../core/model.ts';
import type { RequirementId } from '../spec/requirement-ids.ts';
import { readingPoints, type ReadingChoiceId, type ReadingPointId } from '../spec/readings.ts';
import { kept, type Observed } from './context.ts';

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
  /** The exchanges that show it (the first violations' evidence); none in a sample's entries. */
  exchanges: Observed[];
  /** Where the traffic shows it: the last exchange's source. */
  source: string;
  at: number;
}

export interface CheckTally {
  def: CheckDef;
  observed: number;
  /** Violations in all, and per requirement with the place of its first. */
  violations: number;
  byRequirement: Map<RequirementId, { count: number; at: number }>;
  first?: Violation;
  firstMust?: Violation;
  /** The earliest violations (at most SAMPLE_LIMIT, the first of each requirement always among them). */
  sample: Violation[];
  /** Text -> where it was first said. */
  notes: Map<string, number>;
  advisories: Map<string, number>;
  /** Readings of the catalogue (spec/readings.ts) the traffic showed: `point choice` -> where first shown. */
  readings: Map<string, number>;
  /** Distinct notes and advisories past TEXT_LIMIT, counted, not listed. */
  unlisted: number;
}

/** A finding about the client that made the traffic (reported apart, never failing the run). */
export interface ClientFinding {
  id: string;
  requirement: RequirementId;
  text: string;
  /** The exchanges that show it (the first finding's); none in a sample's entries. */
  exchanges: Observed[];
  /** Where the traffic shows it: the last exchange's source. */
  source: string;
  at: number;
}

export interface ClientTally {
  first: ClientFinding;
  count: number;
  sample: ClientFinding[];
}

/** Where the judge's end-of-traffic decisions are placed: after every exchange. */
export const AT_END = Number.MAX_SAFE_INTEGER;
export const SAMPLE_LIMIT = 200;
/** Distinct notes (and advisories) a check lists at most; the rest are counted. */
export const TEXT_LIMIT = 100;
/**
 * Keys of per-key state a rule keeps at most (bulks, idempotency scopes, cursors, ...): enough for
 * every key a session of a day shows together, small enough that a judge stays within its memory.
 */
export const STATE_LIMIT = 2048;

const insertByAt = <T extends { at: number }>(list: T[], item: T) => {
  let i = list.length;
  while (i > 0 && list[i - 1]!.at > item.at) i--;
  list.splice(i, 0, item);
};

export class Verdicts {
  readonly tallies = new Map<string, CheckTally>();
  readonly client = new Map<string, ClientTally>();
  /** Where the judge is in the traffic (the exchange being judged, or AT_END). */
  at = 0;
  /** Whether a verdict about an exchange is this judge's to record (false: another partition's). */
  owns: (o: Observed) => boolean = () => true;
  /** Whether the exchange being judged is this judge's own (its partition). */
  current = true;
  private readonly isMust: (requirement: RequirementId) => boolean;

  constructor(defs: readonly CheckDef[], isMust: (requirement: RequirementId) => boolean) {
    this.isMust = isMust;
    for (const def of defs) this.tallies.set(def.id, { def, observed: 0, violations: 0, byRequirement: new Map(), sample: [], notes: new Map(), advisories: new Map(), readings: new Map(), unlisted: 0 });
  }

  private tally(id: string): CheckTally {
    const t = this.tallies.get(id);
    if (!t) throw new Error(`traffic: no check ${id} is declared`);
    return t;
  }

  /** Whether a verdict showing these exchanges is recorded here (the last one is where it is found). */
  private mine(exchanges?: Observed[]): boolean {
    const last = exchanges?.at(-1);
    return last ? this.owns(last) : this.current;
  }

  /** The rule applied to one more exchange (or group) and held. */
  pass(id: string, about?: Observed): void {
    // mine([about]) without an array per call (every exchange passes here several times).
    if (about ? this.owns(about) : this.current) this.tally(id).observed += 1;
  }

  fail(id: string, requirement: RequirementId, expected: string, actual: string, exchanges: Observed[], at = this.at): void {
    if (!this.mine(exchanges)) return;
    const t = this.tally(id);
    t.observed += 1;
    t.violations += 1;
    const source = exchanges.at(-1)!.ex.source;
    // Only the first violations keep their exchanges (as evidence, held without parsed bodies); a sample's entry keeps where it is.
    const v: Violation = { requirement, expected, actual, exchanges: [], source, at };
    const seen = t.byRequirement.get(requirement);
    if (seen) {
      seen.count += 1;
      seen.at = Math.min(seen.at, at);
    } else t.byRequirement.set(requirement, { count: 1, at });
    const first = !t.first || at < t.first.at;
    const firstMust = this.isMust(requirement) && (!t.firstMust || at < t.firstMust.at);
    if (first || firstMust) {
      const evidence: Violation = { ...v, exchanges: exchanges.map((o) => kept(o)) };
      if (first) t.first = evidence;
      if (firstMust) t.firstMust = evidence;
    }
    if (t.sample.length < SAMPLE_LIMIT || !seen) insertByAt(t.sample, v);
  }

  /** Applies the rule: `violated` is the actual value when it broke, undefined when it held. */
  judge(id: string, requirement: RequirementId, expected: string, violated: string | undefined, exchanges: Observed[]): void {
    if (violated === undefined) this.pass(id, exchanges.at(-1));
    else this.fail(id, requirement, expected, violated, exchanges);
  }

  note(id: string, text: string, at = this.at, about?: Observed): void {
    if (about ? !this.owns(about) : !this.current && at !== AT_END) return;
    const t = this.tally(id);
    if (t.notes.has(text)) return;
    if (t.notes.size < TEXT_LIMIT) t.notes.set(text, at);
    else t.unlisted += 1;
  }

  /** A finding beyond the document: reported, never failing. */
  advise(id: string, text: string, about?: Observed): void {
    if (!(about ? this.owns(about) : this.current)) return;
    const t = this.tally(id);
    if (t.advisories.has(text)) return;
    if (t.advisories.size < TEXT_LIMIT) t.advisories.set(text, this.at);
    else t.unlisted += 1;
  }

  /**
   * The answer the target gave at a reading point of the catalogue, as a run's check records it
   * (suites/support/check.ts): recorded once per point and answer; an answer a client written from
   * the document breaks on warns under the point's `should`, when the check cites it.
   */
  reading<P extends ReadingPointId>(id: string, point: P, choice: ReadingChoiceId<P>, exchanges: Observed[], detail?: string): void {
    if (!this.mine(exchanges)) return;
    const t = this.tally(id);
    const key = `${point} ${choice}`;
    if (!t.readings.has(key)) t.readings.set(key, this.at);
    const p = readingPoints[point];
    const c = (p.choices as Record<string, { text: string; breaks?: string }>)[choice]!;
    if (!c.breaks || !p.warns || !t.def.requirements.includes(p.warns)) return;
    const faithful = Object.values(p.choices as Record<string, { text: string; breaks?: string }>).filter((x) => !x.breaks).map((x) => x.text);
    this.fail(id, p.warns, `${p.title}: ${faithful.join(', or ')}`, `${c.text}${detail ? ` (${detail})` : ''}: ${c.breaks}`, exchanges);
  }

  clientFinding(id: string, requirement: RequirementId, text: string, exchanges: Observed[], at = this.at): void {
    if (!this.mine(exchanges)) return;
    const finding: ClientFinding = { id, requirement, text, exchanges: [], source: exchanges.at(-1)!.ex.source, at };
    const withEvidence = (): ClientFinding => ({ ...finding, exchanges: exchanges.map((o) => kept(o)) });
    const t = this.client.get(id);
    if (!t) {
      this.client.set(id, { first: withEvidence(), count: 1, sample: [finding] });
      return;
    }
    t.count += 1;
    if (at < t.first.at) t.first = withEvidence();
    if (t.sample.length < SAMPLE_LIMIT) insertByAt(t.sample, finding);
  }
}

/** Per-key state of a rule, bounded: past `limit` keys the oldest is let go and counted. */
export class BoundedMap<K, V> extends Map<K, V> {
  /** Keys let go at the bound (reported, never a silent loss). */
  dropped = 0;
  constructor(
    readonly limit: number,
    private readonly onDrop?: (key: K, value: V) => void,
  ) {
    super();
  }
  /**
   * One iterator kept over the keys, oldest first: a Map's iterator stays valid as entries come and
   * go, and everything it has passed was let go. A new iterator per eviction walked over every
   * deleted slot V8 keeps until it rehashes the table (6 % of `check`'s time with 32,768 owners).
   */
  private oldestFirst: MapIterator<K> | undefined;

  override set(key: K, value: V): this {
    // Set first, then let the oldest go: one lookup of the key, not two.
    super.set(key, value);
    if (this.size > this.limit) {
      let oldest = (this.oldestFirst ??= this.keys()).next();
      // Ended only if it had passed every entry (never past the bound): a new one starts at the oldest.
      if (oldest.done) oldest = (this.oldestFirst = this.keys()).next();
      // The oldest entry is cold in the cache: its value is read only for a listener.
      const dropped = this.onDrop ? this.get(oldest.value!) : undefined;
      this.delete(oldest.value!);
      this.dropped += 1;
      this.onDrop?.(oldest.value!, dropped!);
    }
    return this;
  }
}

/** What a rule let go at a bound, for the report. */
export interface Forgotten {
  check: string;
  what: string;
  limit: number;
  count: number;
}

/** A rule as a reducer over the exchanges in time order: `see` each, `finish` once at the end. */
export interface Reducer {
  see(o: Observed): void;
  finish?(): void;
  /** What it let go at its bounds. */
  forgotten?(): Forgotten[];
}
