// Independent requests of one check, sent a wave at a time. Against a distant host a run is a chain
// of round trips, so a check that sends many requests none of which depends on another sends up to
// CONFORMANCE_CONCURRENCY of them together (the client still paces them and bounds what is in
// flight run-wide). Each wave's answers are judged in the items' order before the next wave goes
// out, so the first failure, the notes and the readings are those of a run that sends one at a
// time, a failure stops the sending within one wave, and the log keeps the order of the items
// (harness/exchange-log.ts reserves a line per request when it is sent).
import type { CheckContext } from './check.ts';

/** How many requests of one check go out together: the run's requests in flight. */
export const waveSize = (t: CheckContext): number => Math.max(1, t.config.settings.concurrency);

/**
 * Sends `send(item)` for every item, `waveSize` at a time, and calls `judge` with each answer in
 * the items' order; a rejected send is thrown when its turn to be judged comes.
 */
export async function inWaves<T, R>(
  t: CheckContext,
  items: readonly T[],
  send: (item: T) => Promise<R>,
  judge: (item: T, answer: R) => void | Promise<void>,
): Promise<void> {
  const wave = waveSize(t);
  for (let start = 0; start < items.length; start += wave) {
    const chunk = items.slice(start, start + wave);
    const sent = await Promise.allSettled(chunk.map((item) => send(item)));
    for (const [i, item] of chunk.entries()) {
      const outcome = sent[i]!;
      if (outcome.status === 'rejected') throw outcome.reason;
      await judge(item, outcome.value);
    }
  }
}

/** Every item's answer, in the items' order, sent `waveSize` at a time. */
export async function allInWaves<T, R>(t: CheckContext, items: readonly T[], send: (item: T) => Promise<R>): Promise<R[]> {
  const answers: R[] = [];
  await inWaves(t, items, send, (_, answer) => void answers.push(answer));
  return answers;
}
