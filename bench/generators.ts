// Time to generate one valid 1,000-recipient bulk body (target: under 5 ms), so the
// recipient-limit properties cost nothing next to the network. Not a timed test.
//   npx tsx bench/generators.ts [runs]      (also part of `npm run bench`, bench/index.ts)
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { bulkBodyWithRecipientCount, recipientCountBounds } from '../generators/bulk-request.ts';
import { validateRequestBody } from '../spec/validators.ts';
import { median, percentile } from './stats.ts';

export const GENERATOR_TARGET_MS = 5;

const scenarios = {
  'generated numbers, message': { senderId: 'ACME' },
  'pool of 3 numbers, message': { senderId: 'ACME', pool: ['+15550100001', '+447700900123', '+4915112345678'] },
  'generated numbers, template with 3 placeholders': {
    senderId: 'ACME',
    templateId: '0190f3a2-1c2b-7d4e-8f00-123456789abc',
    placeholders: ['name', 'city', 'amount'],
    content: 'template' as const,
  },
};

export interface GeneratorFigures {
  scenario: string;
  recipients: number;
  runs: number;
  medianMs: number;
  p95Ms: number;
  /** Bodies per second at the median time. */
  bodiesPerS: number;
}

/** Median and p95 time of one body per scenario; the first body of each is checked against the schema. */
export function measureBulkBodyGeneration(runs: number): GeneratorFigures[] {
  const { max } = recipientCountBounds();
  return Object.entries(scenarios).map(([scenario, options]) => {
    const arb = bulkBodyWithRecipientCount(max, options);
    fc.sample(arb, { seed: 1, numRuns: 5 }); // warm-up
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const start = performance.now();
      const [body] = fc.sample(arb, { seed: i, numRuns: 1 });
      times.push(performance.now() - start);
      if (i === 0 && validateRequestBody('createSmsBulkMessage', body).length > 0) throw new Error(`${scenario}: generated an invalid body`);
    }
    const medianMs = median(times);
    return { scenario, recipients: max, runs, medianMs, p95Ms: percentile(times, 0.95), bodiesPerS: 1000 / medianMs };
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const runs = Number(process.argv[2] ?? 200);
  const figures = measureBulkBodyGeneration(runs);
  for (const f of figures) {
    console.log(`${f.scenario}: ${f.recipients} recipients, median ${f.medianMs.toFixed(3)} ms, p95 ${f.p95Ms.toFixed(3)} ms over ${f.runs} runs`);
  }
  const slow = figures.some((f) => f.medianMs >= GENERATOR_TARGET_MS);
  console.log(slow ? `SLOWER than the ${GENERATOR_TARGET_MS} ms target` : `all under the ${GENERATOR_TARGET_MS} ms target`);
}
