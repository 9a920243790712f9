// suites/support/waves.ts: a check's independent requests go out CONFORMANCE_CONCURRENCY at a time,
// and are judged in the items' order, a wave at a time, so a failure stops the sending.
import { describe, expect, it } from 'vitest';
import type { CheckContext } from '../../suites/support/check.ts';
import { allInWaves, inWaves } from '../../suites/support/waves.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const withConcurrency = (concurrency: number) => ({ config: { settings: { concurrency } } }) as unknown as CheckContext;

describe('waves', () => {
  it('sends at most the run concurrency at once and answers in the items order', async () => {
    let inFlight = 0;
    let most = 0;
    const items = [50, 5, 30, 1, 20, 1, 1];
    const answers = await allInWaves(withConcurrency(3), items, async (delay) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await sleep(delay);
      inFlight--;
      return delay * 2;
    });
    expect(most).toBe(3);
    expect(answers).toEqual(items.map((d) => d * 2));
  });

  it('judges a wave in order before sending the next, so a failure stops the sending', async () => {
    const sent: number[] = [];
    const judged: number[] = [];
    const run = inWaves(
      withConcurrency(2),
      [1, 2, 3, 4, 5],
      async (n) => void sent.push(n),
      (n) => {
        judged.push(n);
        if (n === 3) throw new Error('failed at 3');
      },
    );
    await expect(run).rejects.toThrow('failed at 3');
    expect(judged).toEqual([1, 2, 3]);
    expect(sent).toEqual([1, 2, 3, 4]);
  });
});
