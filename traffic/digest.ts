// What a judge keeps of a traffic once every exchange has passed: per check the counts, the first
// violation and the first of a MUST (with their evidence already redacted), a bounded sample,
// notes and advisories each with the place in the traffic where it was first found, the client's
// side, and the facts of the input. Small, redacted and plain JSON, so partitions of one traffic
// write it (traffic-partition.json) and `check --merge-reports` adds them up into the one report
// a single pass would have written.
import type { Exchange } from '../core/model.ts';
import type { RequirementId } from '../spec/requirement-ids.ts';
import type { Forgotten } from './verdicts.ts';

export interface ViolationDigest {
  requirement: RequirementId;
  expected: string;
  actual: string;
  at: number;
  /** Where the traffic shows it (`file line N`, `file entry N`). */
  source: string;
  evidence: Exchange[];
}

export interface FindingDigest {
  requirement: RequirementId;
  expected: string;
  actual: string;
  source: string;
  at: number;
}

export interface CheckDigest {
  id: string;
  observed: number;
  violations: number;
  /** Requirement, count, where its first violation is. */
  byRequirement: Array<[RequirementId, number, number]>;
  first?: ViolationDigest;
  firstMust?: ViolationDigest;
  sample: FindingDigest[];
  notes: Array<[string, number]>;
  advisories: Array<[string, number]>;
  /** Readings of the catalogue shown, `point choice`, with where first (absent in partition files of older versions). */
  readings?: Array<[string, number]>;
  /** Distinct notes and advisories beyond the listed ones (counted, not listed). */
  unlisted: number;
}

export interface ClientDigest {
  id: string;
  requirement: RequirementId;
  text: string;
  at: number;
  count: number;
  /** The first finding's exchange: `METHOD /path (source)`. */
  where: string;
  sample: Array<{ requirement: RequirementId; text: string; source: string }>;
}

export interface InputFacts {
  /** Exchanges judged here (this partition's). */
  judged: number;
  /** Of them, calls of documented operations. */
  calls: number;
  /** Of those, 429 or 503 answers. */
  pacing: number;
  /** Origins of the calls, each with where it was first seen. */
  origins: Array<[string, number]>;
  /** Exchanges read (every partition reads them all). */
  read: number;
}

export interface Digest {
  checks: CheckDigest[];
  client: ClientDigest[];
  facts: InputFacts;
  forgotten: Forgotten[];
  inputNotes: string[];
}

/** One partition's digest as written beside its report. */
export interface PartitionFile {
  format: 'conformance-traffic-partition/1';
  partition: { index: number; count: number };
  /** The files judged (base names, in the order given), which every partition must share. */
  inputs: string[];
  digest: Digest;
}

const earlier = <T extends { at: number }>(a: T | undefined, b: T | undefined) => (!a ? b : !b ? a : b.at < a.at ? b : a);

function mergeTexts(lists: Array<Array<[string, number]>>): Array<[string, number]> {
  const out = new Map<string, number>();
  for (const list of lists) for (const [text, at] of list) out.set(text, Math.min(at, out.get(text) ?? Infinity));
  return [...out].sort((a, b) => a[1] - b[1]);
}

/** The digests of a traffic's partitions as one (every exchange was judged by exactly one of them). */
export function mergeDigests(parts: readonly Digest[]): Digest {
  const [head] = parts;
  if (!head) throw new Error('traffic: no digest to merge');
  const checks = head.checks.map((c, i): CheckDigest => {
    const all = parts.map((p) => p.checks[i]!);
    const byRequirement = new Map<RequirementId, [number, number]>();
    for (const part of all) {
      for (const [requirement, count, at] of part.byRequirement) {
        const seen = byRequirement.get(requirement);
        byRequirement.set(requirement, seen ? [seen[0] + count, Math.min(seen[1], at)] : [count, at]);
      }
    }
    const first = all.map((p) => p.first).reduce(earlier, undefined);
    const firstMust = all.map((p) => p.firstMust).reduce(earlier, undefined);
    return {
      id: c.id,
      observed: all.reduce((n, p) => n + p.observed, 0),
      violations: all.reduce((n, p) => n + p.violations, 0),
      byRequirement: [...byRequirement].map(([r, [count, at]]) => [r, count, at] as [RequirementId, number, number]).sort((a, b) => a[2] - b[2]),
      ...(first ? { first } : {}),
      ...(firstMust ? { firstMust } : {}),
      sample: all.flatMap((p) => p.sample).sort((a, b) => a.at - b.at),
      notes: mergeTexts(all.map((p) => p.notes)),
      advisories: mergeTexts(all.map((p) => p.advisories)),
      readings: mergeTexts(all.map((p) => p.readings ?? [])),
      unlisted: all.reduce((n, p) => n + p.unlisted, 0),
    };
  });
  const client = new Map<string, ClientDigest>();
  for (const part of parts) {
    for (const c of part.client) {
      const seen = client.get(c.id);
      if (!seen) client.set(c.id, { ...c, sample: [...c.sample] });
      else {
        const first = c.at < seen.at ? c : seen;
        client.set(c.id, { ...first, count: seen.count + c.count, sample: [...seen.sample, ...c.sample] });
      }
    }
  }
  const forgotten = new Map<string, Forgotten>();
  for (const f of parts.flatMap((p) => p.forgotten)) {
    const key = `${f.check}|${f.what}`;
    const seen = forgotten.get(key);
    forgotten.set(key, seen ? { ...seen, count: seen.count + f.count } : { ...f });
  }
  return {
    checks,
    client: [...client.values()].sort((a, b) => a.at - b.at),
    facts: {
      judged: parts.reduce((n, p) => n + p.facts.judged, 0),
      calls: parts.reduce((n, p) => n + p.facts.calls, 0),
      pacing: parts.reduce((n, p) => n + p.facts.pacing, 0),
      origins: mergeTexts(parts.map((p) => p.facts.origins)),
      read: head.facts.read,
    },
    forgotten: [...forgotten.values()],
    inputNotes: head.inputNotes,
  };
}
