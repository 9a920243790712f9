// The catalogue is data that every suite, the reference and the reports cite by id; these checks
// keep it well-formed and keep the generated RequirementId type in step with it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { TOPICS, type Topic } from '../../core/model.ts';
import { CATALOGUE_PATH, ID_PATTERN, IDS_MODULE_PATH, catalogueIds, renderRequirementIds } from '../../scripts/gen-requirement-ids.ts';
import { REQUIREMENT_IDS } from '../../spec/requirement-ids.ts';
import { requirementById, requirements, requirementsByTopic, sections } from '../../spec/requirements.ts';

const LEVELS = ['must', 'should', 'note'];
const TESTABILITY = ['black-box', 'needs-fixture', 'needs-fault', 'not-testable'];
const FIELDS = ['id', 'section', 'level', 'text', 'testability', 'topic', 'readings', 'assumption'];

/** Each topic's id prefix; an id's prefix says which topic it belongs to. */
const PREFIX_OF_TOPIC: Record<Topic, string> = {
  'auth-ordering': 'AUTH',
  idempotency: 'IDEM',
  'recipient-limits': 'RLIM',
  cursors: 'CUR',
  'bulk-invariants': 'BULK',
  wallet: 'WAL',
  concealment: 'CONC',
  'request-id': 'RID',
  'problem-details': 'PROB',
  validation: 'VAL',
  schemas: 'SCH',
  webhooks: 'HOOK',
  messages: 'MSG',
  sequences: 'SEQ',
};

/** Every section and subsection the document has. */
const DOCUMENT_SECTIONS = [
  '1', '2', '2.1', '2.2', '2.3', '2.4', '2.5', '2.6', '3', '3.1', '3.2', '3.3', '3.4',
  '4', '4.0', '4.1', '4.2', '4.3', '4.4', '4.5', '4.6', '5', '6', '7', '8', '9',
];

/** Wording that marks a point the document leaves open. */
const GAP_WORDING = /\bnot shown\b/i;

function duplicates(values: string[]): string[] {
  return values.filter((value, index) => values.indexOf(value) !== index);
}

describe('requirements catalogue', () => {
  it('has at least 100 entries', () => {
    expect(requirements.length).toBeGreaterThanOrEqual(100);
  });

  it('gives every entry a unique, well-formed id whose prefix matches its topic', () => {
    expect(duplicates(requirements.map((r) => r.id))).toEqual([]);
    const malformed = requirements.filter((r) => !ID_PATTERN.test(r.id)).map((r) => r.id);
    expect(malformed).toEqual([]);
    const misfiled = requirements
      .filter((r) => r.id.split('-')[0] !== PREFIX_OF_TOPIC[r.topic])
      .map((r) => `${r.id} (${r.topic})`);
    expect(misfiled).toEqual([]);
  });

  it('uses only the known fields, levels and testability values, with non-empty text', () => {
    const problems: string[] = [];
    for (const r of requirements) {
      for (const key of Object.keys(r)) if (!FIELDS.includes(key)) problems.push(`${r.id}: unknown field ${key}`);
      if (!LEVELS.includes(r.level)) problems.push(`${r.id}: level ${String(r.level)}`);
      if (!TESTABILITY.includes(r.testability)) problems.push(`${r.id}: testability ${String(r.testability)}`);
      if (typeof r.text !== 'string' || r.text.trim().length < 10) problems.push(`${r.id}: text too short`);
      if (typeof r.section !== 'string') problems.push(`${r.id}: section must be a quoted string`);
    }
    expect(problems).toEqual([]);
    expect(duplicates(requirements.map((r) => r.text))).toEqual([]);
  });

  it('files every entry under one of the 14 topics, each with something a run can test', () => {
    const unknown = requirements.filter((r) => !(TOPICS as readonly string[]).includes(r.topic)).map((r) => r.id);
    expect(unknown).toEqual([]);
    for (const topic of TOPICS) {
      const testable = requirementsByTopic(topic).filter(
        (r) => r.testability === 'black-box' || r.testability === 'needs-fixture',
      );
      expect(testable.length, `topic ${topic} has no black-box or needs-fixture entry`).toBeGreaterThan(0);
    }
  });

  it('lists every section of the document once, each with a title', () => {
    const ids = sections.map((s) => s.id);
    expect(duplicates(ids)).toEqual([]);
    expect([...ids].sort()).toEqual([...DOCUMENT_SECTIONS].sort());
    expect(sections.filter((s) => typeof s.title !== 'string' || s.title.length === 0)).toEqual([]);
  });

  it('cites only listed sections, and every top-level section 1 to 9 is cited', () => {
    const known = new Set(sections.map((s) => s.id));
    expect(requirements.filter((r) => !known.has(r.section)).map((r) => `${r.id} -> ${r.section}`)).toEqual([]);
    const cited = new Set(requirements.map((r) => r.section.split('.')[0]));
    for (let top = 1; top <= 9; top++) expect(cited.has(String(top)), `section ${top} is cited by no entry`).toBe(true);
  });

  it('states the checker position for every point the document leaves open', () => {
    const withoutPosition = requirements
      .filter((r) => GAP_WORDING.test(r.text) || (r.readings?.some((reading) => GAP_WORDING.test(reading)) ?? false))
      .filter((r) => typeof r.assumption !== 'string' || r.assumption.trim().length === 0)
      .map((r) => r.id);
    expect(withoutPosition).toEqual([]);
  });

  it('lists at least two readings wherever it lists readings', () => {
    const problems = requirements
      .filter((r) => r.readings !== undefined)
      .filter((r) => !Array.isArray(r.readings) || r.readings.length < 2 || r.readings.some((x) => typeof x !== 'string' || !x))
      .map((r) => r.id);
    expect(problems).toEqual([]);
    expect(duplicates(requirements.flatMap((r) => (r.readings ? duplicates(r.readings) : [])))).toEqual([]);
  });

  it('finds entries by id and by topic', () => {
    expect(requirementById('IDEM-REPLAY')?.topic).toBe('idempotency');
    expect(requirementById('NO-SUCH-ID')).toBeUndefined();
    expect(requirementsByTopic('wallet').every((r) => r.topic === 'wallet')).toBe(true);
    const total = TOPICS.reduce((sum, topic) => sum + requirementsByTopic(topic).length, 0);
    expect(total).toBe(requirements.length);
  });
});

describe('generated RequirementId type', () => {
  const yamlText = readFileSync(CATALOGUE_PATH, 'utf8');

  it('is in step with the catalogue (run `npx tsx scripts/gen-requirement-ids.ts` when it is not)', () => {
    expect(readFileSync(IDS_MODULE_PATH, 'utf8')).toBe(renderRequirementIds(yamlText));
    expect([...REQUIREMENT_IDS]).toEqual(requirements.map((r) => r.id));
  });

  it('renders deterministically and says it is generated', () => {
    const text = renderRequirementIds(yamlText);
    expect(renderRequirementIds(yamlText)).toBe(text);
    expect(text.split('\n')[0]).toMatch(/GENERATED/);
    expect(text).toContain('export type RequirementId = (typeof REQUIREMENT_IDS)[number];');
  });

  it('refuses to generate from an entry without a well-formed id', () => {
    const broken = parse(yamlText) as { requirements: Array<{ id: string }> };
    broken.requirements[0] = { ...broken.requirements[0], id: 'lower-case' };
    expect(() => catalogueIds(JSON.stringify(broken))).toThrow(/well-formed id/);
    expect(catalogueIds('requirements:\n  - id: IDEM-X\n')).toEqual(['IDEM-X']);
  });
});
