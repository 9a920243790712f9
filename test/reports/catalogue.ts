// A small fixed catalogue for the report tests, so that expectations do not move with the real one.
import type { CatalogueEntry, RunInfo } from '../../harness/result.ts';

export const testCatalogue: CatalogueEntry[] = [
  {
    id: 'FIX-MUST-A',
    section: '4.5',
    level: 'must',
    text: 'The balance is returned to a permitted caller.',
    testability: 'black-box',
    topic: 'wallet',
    assumption: 'A missing field list is read as every field required.',
  },
  { id: 'FIX-MUST-B', section: '4.5', level: 'must', text: 'The balance call answers 200.', testability: 'black-box', topic: 'wallet' },
  { id: 'FIX-SHOULD', section: '7', level: 'should', text: 'A problem carries an instance.', testability: 'black-box', topic: 'problem-details' },
  { id: 'FIX-NEEDS-FIXTURE', section: '5', level: 'must', text: 'A limited caller is refused.', testability: 'needs-fixture', topic: 'wallet' },
  { id: 'FIX-ERRORED', section: '4.1', level: 'must', text: 'A submission is accepted.', testability: 'black-box', topic: 'wallet' },
  { id: 'FIX-UNTESTED', section: '9', level: 'note', text: 'The version is in the path.', testability: 'not-testable', topic: 'schemas' },
];

export const levelOf = (id: string) => testCatalogue.find((r) => r.id === id)?.level;

export const sectionTitles = new Map([
  ['4.5', 'Wallet balance retrieval'],
  ['7', 'Error responses'],
]);

export function runInfo(overrides: Partial<RunInfo> = {}): RunInfo {
  return {
    tool: { name: 'conformance', version: '0.1.0' },
    contract: { version: '0.1.0-draft', sha256: 'a'.repeat(64) },
    target: { baseUrl: 'http://127.0.0.1:4010', embedded: true },
    profile: 'full',
    seed: 42,
    runs: 25,
    startedAt: '2025-01-01T00:00:00.000Z',
    finishedAt: '2025-01-01T00:00:01.500Z',
    topics: ['wallet', 'idempotency'],
    ...overrides,
  };
}
