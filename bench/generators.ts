// Prints the median time to generate one valid 1,000-recipient bulk body (target: under 5 ms),
// so the recipient-limit properties cost nothing next to the network. Not a timed test.
//   npx tsx bench/generators.ts [runs]
import fc from 'fast-check';
import { bulkBodyWithRecipientCount, recipientCountBounds } from '../generators/bulk-request.ts';
import { validateRequestBody } from '../spec/validators.ts';

const runs = Number(process.argv[2] ?? 200);
const { max } = recipientCountBounds();
const TARGET_MS = 5;

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

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

let slow = false;
for (const [name, options] of Object.entries(scenarios)) {
  const arb = bulkBodyWithRecipientCount(max, options);
  fc.sample(arb, { seed: 1, numRuns: 5 }); // warm-up
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const [body] = fc.sample(arb, { seed: i, numRuns: 1 });
    times.push(performance.now() - start);
    if (i === 0 && validateRequestBody('createSmsBulkMessage', body).length > 0) throw new Error(`${name}: generated an invalid body`);
  }
  const m = median(times);
  slow ||= m >= TARGET_MS;
  console.log(`${name}: ${max} recipients, median ${m.toFixed(3)} ms, p95 ${[...times].sort((a, b) => a - b)[Math.floor(runs * 0.95)]!.toFixed(3)} ms over ${runs} runs`);
}
console.log(slow ? `SLOWER than the ${TARGET_MS} ms target` : `all under the ${TARGET_MS} ms target`);
