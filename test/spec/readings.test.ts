// The readings catalogue (spec/readings.ts): every reading point reads a rule of the catalogue, every
// answer that breaks a client warns under a `should` some check cites, every rule with readings is
// recorded by a point (or says why not), and docs/readings.md is generated from it.
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ADVISORIES, NOT_RECORDED, readingPoints, type ReadingPoint } from '../../spec/readings.ts';
import { requirementById, requirements } from '../../spec/requirements.ts';
import { READINGS_DOC_PATH, renderReadingsDoc } from '../../scripts/gen-readings-doc.ts';

const points = Object.entries(readingPoints) as Array<[string, ReadingPoint]>;
const suitesDir = new URL('../../suites/', import.meta.url);
// The suites and their support modules (a reading recorded by a helper the checks share counts).
const supportDir = new URL('support/', suitesDir);
const suiteText = [
  ...readdirSync(suitesDir).filter((f) => f.endsWith('.suite.ts')).map((f) => readFileSync(new URL(f, suitesDir), 'utf8')),
  ...readdirSync(supportDir).filter((f) => f.endsWith('.ts')).map((f) => readFileSync(new URL(f, supportDir), 'utf8')),
].join('\n');
const rulesDir = new URL('../../traffic/rules/', import.meta.url);
const trafficText = readdirSync(rulesDir)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => readFileSync(new URL(f, rulesDir), 'utf8'))
  .join('\n');

describe('readings catalogue', () => {
  it('reads rules of the catalogue, with two answers or more each', () => {
    for (const [id, p] of points) {
      expect(requirementById(p.requirement), id).toBeDefined();
      for (const covered of p.covers ?? []) expect(requirementById(covered), `${id} covers ${covered}`).toBeDefined();
      expect(Object.keys(p.choices).length, id).toBeGreaterThanOrEqual(2);
      // At least one answer a client does not break on: the answer a check expects.
      expect(Object.values(p.choices).some((c) => !c.breaks), id).toBe(true);
    }
  });

  it('grades an answer that breaks a client a warning of a should a suite cites', () => {
    for (const [id, p] of points) {
      const breaks = Object.values(p.choices).some((c) => c.breaks);
      expect(p.warns !== undefined, `${id}: warns exactly when an answer breaks a client`).toBe(breaks);
      if (!p.warns) continue;
      expect(requirementById(p.warns)?.level, `${id} warns as ${p.warns}`).toBe('should');
      expect(suiteText.includes(`'${p.warns}'`), `a check cites ${p.warns}`).toBe(true);
    }
  });

  it('is recorded: every point by some check of the suites or rule of the traffic judge', () => {
    for (const [id] of points) expect(suiteText.includes(`t.reading('${id}'`) || new RegExp(`\\.reading\\(\\w+, '${id}'`).test(trafficText), id).toBe(true);
  });

  it("reviews every note and advisory of the traffic judge's rules", () => {
    const reviewed = new Set(ADVISORIES.flatMap((a) => a.checks));
    for (const file of readdirSync(rulesDir).filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(new URL(file, rulesDir), 'utf8');
      const ids = new Map([...text.matchAll(/const ([A-Z_]+) = '(traffic\/[^']+)'/g)].map((m) => [m[1]!, m[2]!]));
      for (const [, name] of text.matchAll(/v\.(?:note|advise)\(([A-Z_]+)/g)) {
        // A check id computed per operation (schemas) is reviewed by its family.
        const id = ids.get(name!) ?? `traffic/${file.replace(/\.ts$/, '')}/*`;
        expect(reviewed.has(id), `${file}: ${id}`).toBe(true);
      }
    }
  });

  it('records every rule with readings, or says why not', () => {
    const recorded = new Set(points.flatMap(([, p]) => [p.requirement, ...(p.covers ?? [])]));
    const open = requirements.filter((r) => r.readings && !recorded.has(r.id) && NOT_RECORDED[r.id] === undefined).map((r) => r.id);
    expect(open).toEqual([]);
    for (const id of Object.keys(NOT_RECORDED)) expect(recorded.has(id as never), `${id} is recorded after all`).toBe(false);
  });

  it('reviews advisories: one that moved names the should it became', () => {
    for (const a of ADVISORIES) {
      if (a.movedTo) expect(requirementById(a.movedTo)?.level, a.finding).toBe('should');
    }
  });

  it('is in step with docs/readings.md (run `npx tsx scripts/gen-readings-doc.ts` when it is not)', () => {
    expect(readFileSync(READINGS_DOC_PATH, 'utf8')).toBe(renderReadingsDoc());
  });
});
