// The lanes that overlap checks against a host (suites/support/lanes.ts): at most N checks at once,
// a topic's checks one after another, an `alone` check by itself, the readers of the whole run last,
// and the exchange log in the order of a sequential run however the checks interleaved.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CheckMeta, Topic } from '../../core/model.ts';
import { appendExchange, inExchangeScope, readAllExchanges, reserveExchangeSlot, resetExchangeLog, type ExchangeScope } from '../../harness/exchange-log.ts';
import { declareRunnable, laneOutcome, openLanes, sealLanes, type Runnable } from '../../suites/support/lanes.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

interface Spec {
  topic: string;
  id: string;
  delays: number[];
  readsRun?: boolean;
  alone?: boolean;
  early?: boolean;
}

/** A declared check of `spec` in the run `run`: its id and the meta the lanes fill in. */
function metaOf(spec: Spec, run: string): { checkId: string; meta: CheckMeta } {
  const checkId = `${spec.topic}/${run}-${spec.id}`;
  return { checkId, meta: { topic: spec.topic as Topic, checkId, requirements: [], notes: [], advisories: [], evidence: [], maxRequests: spec.delays.length } };
}

/**
 * Declares each spec as a suite would (its `readsRun`, `alone` and `early` from the spec, the rest
 * from `behaviour`), seals the lanes and waits for every outcome, in declared order.
 */
async function runSpecs<S extends Spec>(specs: S[], run: string, behaviour: (spec: S) => Pick<Runnable, 'execute' | 'sweep'> | Promise<Pick<Runnable, 'execute' | 'sweep'>>) {
  const metas: CheckMeta[] = [];
  for (const spec of specs) {
    const { checkId, meta } = metaOf(spec, run);
    metas.push(meta);
    const { execute, sweep } = await behaviour(spec);
    declareRunnable(checkId, { readsRun: spec.readsRun === true, ...(spec.alone ? { alone: 'test' } : {}), ...(spec.early ? { early: true } : {}), ...(sweep ? { sweep } : {}), execute }, meta);
  }
  sealLanes();
  return { metas, outcomes: await Promise.all(metas.map((m) => laneOutcome(m.checkId)!)) };
}

describe('lanes', () => {
  it('overlaps topics up to the lane count, keeps what must stay ordered ordered, and writes the log in run order', async () => {
    dir = mkdtempSync(join(tmpdir(), 'lanes-'));
    const log = join(dir, 'exchanges.jsonl');
    resetExchangeLog(log);
    const run = `r${Date.now()}`;
    const specs: Spec[] = [
      { topic: 'auth-ordering', id: 'a1', delays: [30, 5] },
      { topic: 'auth-ordering', id: 'a2', delays: [5] },
      { topic: 'idempotency', id: 'i1', delays: [5, 5, 5] },
      { topic: 'idempotency', id: 'i2', delays: [40] },
      { topic: 'recipient-limits', id: 'r1', delays: [10] },
      { topic: 'recipient-limits', id: 'r2', delays: [10, 10], alone: true },
      { topic: 'cursors', id: 'c1', delays: [1] },
      { topic: 'wallet', id: 'w1', delays: [25] },
      { topic: 'request-id', id: 'q1', delays: [3] },
      { topic: 'request-id', id: 'q2', delays: [3], readsRun: true },
      { topic: 'schemas', id: 's1', delays: [2], readsRun: true },
    ];
    let running = 0;
    let most = 0;
    const events: string[] = [];
    const seenByReaders: number[] = [];
    openLanes({ lanes: 3, checkTimeoutMs: 10_000, logPath: log });
    const { metas, outcomes } = await runSpecs(specs, run, async (spec) => {
      // Declared as a suite declares them, a moment apart: the lanes start before the last is declared.
      if (spec.id === 'w1') await sleep(15);
      return {
        execute: (_live, scope) =>
          inExchangeScope(scope, async () => {
            running++;
            most = Math.max(most, running);
            events.push(`start ${spec.id} ${running}`);
            // A reader sees every exchange of the checks that read nothing.
            if (spec.readsRun) seenByReaders.push(readAllExchanges(log).length);
            for (const [i, delay] of spec.delays.entries()) {
              await sleep(delay);
              scope.sent++;
              appendExchange(log, { request: { method: 'GET', url: `http://x/${spec.id}/${i}`, headers: {} }, durationMs: delay, curl: '' });
            }
            running--;
            events.push(`end ${spec.id}`);
            return spec.id === 'i2' ? { skip: 'skipped on purpose' } : {};
          }),
      };
    });
    expect(outcomes.map((o) => o.skip ?? 'ran')).toEqual(specs.map((s) => (s.id === 'i2' ? 'skipped on purpose' : 'ran')));
    expect(most).toBe(3);
    // The alone check ran by itself, after every other check that reads no log, before the readers.
    const alone = events.indexOf('start r2 1');
    expect(events[alone + 1]).toBe('end r2');
    expect(events.slice(alone + 2, alone + 3)).toEqual(['start q2 1']);
    // A topic's checks one after another.
    expect(events.indexOf('end a1')).toBeLessThan(events.findIndex((e) => e.startsWith('start a2')));
    expect(events.indexOf('end i1')).toBeLessThan(events.findIndex((e) => e.startsWith('start i2')));
    const early = specs.filter((s) => !s.readsRun).reduce((n, s) => n + s.delays.length, 0);
    expect(seenByReaders).toEqual([early, early + 1]);
    // The readers last, one after another.
    const firstReader = events.findIndex((e) => e.startsWith('start q2'));
    expect(events.slice(firstReader)).toEqual(['start q2 1', 'end q2', 'start s1 1', 'end s1']);
    // The log in run order: every non-reader in declared order, then the readers.
    const order = [...specs.filter((s) => !s.readsRun), ...specs.filter((s) => s.readsRun)];
    const expected = order.flatMap((s) => s.delays.map((_, i) => `http://x/${s.id}/${i}`));
    expect(readAllExchanges(log).map((x) => x.request.url)).toEqual(expected);
    for (const meta of metas) expect(meta.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('runs a reader topic\'s check that reads no log in a lane, its lines written at its place among the readers', async () => {
    dir = mkdtempSync(join(tmpdir(), 'lanes-'));
    const log = join(dir, 'exchanges.jsonl');
    resetExchangeLog(log);
    const run = `r${Date.now()}`;
    const specs: Spec[] = [
      { topic: 'idempotency', id: 'i1', delays: [30, 30] },
      { topic: 'problem-details', id: 'p1', delays: [2], readsRun: true },
      { topic: 'problem-details', id: 'p2', delays: [5, 5, 5], readsRun: true, early: true },
      { topic: 'problem-details', id: 'p3', delays: [2], readsRun: true },
      { topic: 'schemas', id: 's1', delays: [2], readsRun: true },
    ];
    const events: string[] = [];
    const seen = new Map<string, number>();
    openLanes({ lanes: 2, checkTimeoutMs: 10_000, logPath: log });
    await runSpecs(specs, run, (spec) => ({
      execute: (_live, scope) =>
        inExchangeScope(scope, async () => {
          events.push(`start ${spec.id}`);
          if (spec.readsRun && !spec.early) seen.set(spec.id, readAllExchanges(log).length);
          for (const [i, delay] of spec.delays.entries()) {
            await sleep(delay);
            scope.sent++;
            appendExchange(log, { request: { method: 'GET', url: `http://x/${spec.id}/${i}`, headers: {} }, durationMs: delay, curl: '' });
          }
          events.push(`end ${spec.id}`);
          return {};
        }),
    }));
    // It ran beside the other lanes, before any reader began.
    expect(events.indexOf('end p2')).toBeLessThan(events.indexOf('end i1'));
    expect(events.indexOf('end p2')).toBeLessThan(events.indexOf('start p1'));
    // A reader before it sees none of its lines, a reader after it all of them: as in a sequential run.
    expect(Object.fromEntries(seen)).toEqual({ p1: 2, p3: 6, s1: 7 });
    expect(readAllExchanges(log).map((x) => x.request.url)).toEqual(
      ['i1/0', 'i1/1', 'p1/0', 'p2/0', 'p2/1', 'p2/2', 'p3/0', 's1/0'].map((u) => `http://x/${u}`),
    );
  });

  /**
   * Readers of three topics, each topic's sweep sent early (`sweep`), beside a slow topic and an
   * `alone` check; `sweepDelays` sets how long each topic's sweep takes (another timing, another
   * interleaving). Returns the log, the events, and what each reader saw when it judged.
   */
  async function runWithSweeps(sweepDelays: Record<string, number[]>) {
    dir = mkdtempSync(join(tmpdir(), 'lanes-'));
    const log = join(dir, 'exchanges.jsonl');
    resetExchangeLog(log);
    const run = `w${Date.now()}${Math.random().toString(36).slice(2, 6)}`;
    const specs: Array<Spec & { sweep?: boolean }> = [
      { topic: 'idempotency', id: 'i1', delays: [20, 20, 20] },
      { topic: 'recipient-limits', id: 'r1', delays: [5] },
      { topic: 'recipient-limits', id: 'r2', delays: [10], alone: true },
      { topic: 'request-id', id: 'q0', delays: [3] },
      { topic: 'request-id', id: 'q1', delays: [], readsRun: true, sweep: true },
      { topic: 'request-id', id: 'q2', delays: [1], readsRun: true, sweep: true },
      { topic: 'problem-details', id: 'p1', delays: [], readsRun: true, sweep: true },
      { topic: 'problem-details', id: 'p2', delays: [4, 4], readsRun: true, early: true },
      { topic: 'schemas', id: 's1', delays: [], readsRun: true, sweep: true },
    ];
    const events: string[] = [];
    const seen = new Map<string, string[]>();
    const sentBefore = new Map<string, number>();
    const sweepsSent = new Map<string, number>();
    // As the client sends: a place among the scope's held lines taken when sent, filled when answered.
    const send = (scope: ExchangeScope, url: string, delay: number) => {
      const slot = reserveExchangeSlot();
      scope.sent++;
      return sleep(delay).then(() => appendExchange(log, { request: { method: 'GET', url: `http://x/${url}`, headers: {} }, durationMs: delay, curl: '' }, slot));
    };
    openLanes({ lanes: 3, checkTimeoutMs: 10_000, logPath: log, topicOrder: ['idempotency', 'recipient-limits', 'request-id', 'problem-details', 'schemas'] });
    const { outcomes } = await runSpecs(specs, run, (spec) => ({
      ...(spec.sweep
        ? {
            // The topic's sweep: its requests sent side by side, answered in any order.
            sweep: (_live: CheckMeta, scope: ExchangeScope) =>
              inExchangeScope(scope, async () => {
                events.push(`sweep start ${spec.id}`);
                sweepsSent.set(spec.topic, (sweepsSent.get(spec.topic) ?? 0) + 1);
                await Promise.all(sweepDelays[spec.topic]!.map((delay, i) => send(scope, `${spec.topic}-sweep/${i}`, delay)));
                events.push(`sweep end ${spec.id}`);
              }),
          }
        : {}),
      execute: (_live, scope) =>
        inExchangeScope(scope, async () => {
          events.push(`start ${spec.id}`);
          sentBefore.set(spec.id, scope.sent);
          if (spec.readsRun && !spec.early) seen.set(spec.id, readAllExchanges(log).map((x) => x.request.url.slice('http://x/'.length)));
          for (const [i, delay] of spec.delays.entries()) await send(scope, `${spec.id}/${i}`, delay);
          events.push(`end ${spec.id}`);
          return {};
        }),
    }));
    expect(outcomes).toEqual(specs.map(() => ({})));
    return { log: readAllExchanges(log).map((x) => x.request.url.slice('http://x/'.length)), events, seen, sentBefore, sweepsSent };
  }

  it("sends a reader topic's shared sweep early in a lane: its lines at the reader's place, the same for any timing, seen by the judging, counted to the reader", async () => {
    const fast = await runWithSweeps({ 'request-id': [30, 1], 'problem-details': [1, 25], schemas: [15, 2, 8] });
    const slow = await runWithSweeps({ 'request-id': [1, 45], 'problem-details': [40, 1], schemas: [2, 30, 1] });
    const expectedLog = [
      'i1/0', 'i1/1', 'i1/2', 'r1/0', 'r2/0', 'q0/0',
      'request-id-sweep/0', 'request-id-sweep/1', 'q2/0',
      'problem-details-sweep/0', 'problem-details-sweep/1', 'p2/0', 'p2/1',
      'schemas-sweep/0', 'schemas-sweep/1', 'schemas-sweep/2',
    ];
    for (const { log, events, seen, sentBefore, sweepsSent } of [fast, slow]) {
      // The same log whatever the timing: each sweep at its reader's place, in the order it was sent.
      expect(log).toEqual(expectedLog);
      // One sweep per topic, by the topic's first reader.
      expect(Object.fromEntries(sweepsSent)).toEqual({ 'request-id': 1, 'problem-details': 1, schemas: 1 });
      expect(events.filter((e) => e.startsWith('sweep start'))).toEqual(expect.arrayContaining(['sweep start q1', 'sweep start p1', 'sweep start s1']));
      // Nothing of a sweep after the alone check began: every sweep ended in the lanes.
      const alone = events.indexOf('start r2');
      expect(alone).toBeGreaterThan(-1);
      for (const [i, e] of events.entries()) if (e.startsWith('sweep')) expect(i).toBeLessThan(alone);
      // The alone check ran by itself; then the readers only judge.
      expect(events[alone + 1]).toBe('end r2');
      // A reader's judging sees its own sweep, and every exchange of the run before it.
      expect(seen.get('q1')).toEqual(expectedLog.slice(0, expectedLog.indexOf('request-id-sweep/1') + 1));
      expect(seen.get('p1')).toEqual(expectedLog.slice(0, expectedLog.indexOf('problem-details-sweep/1') + 1));
      expect(seen.get('s1')).toEqual(expectedLog);
      // The sweep's requests count to the reader that carried it (its requestsSent), no other.
      expect(Object.fromEntries(['q1', 'q2', 'p1', 's1'].map((id) => [id, sentBefore.get(id)]))).toEqual({ q1: 2, q2: 0, p1: 2, s1: 3 });
    }
  });

  it('writes the log in the order of a sequential run even when topics are declared and run in another', async () => {
    dir = mkdtempSync(join(tmpdir(), 'lanes-'));
    const log = join(dir, 'exchanges.jsonl');
    resetExchangeLog(log);
    const run = `o${Date.now()}`;
    openLanes({ lanes: 2, checkTimeoutMs: 10_000, logPath: log, topicOrder: ['auth-ordering', 'wallet', 'validation'] });
    const declared: Array<[Topic, string, number]> = [
      ['validation', 'v1', 30],
      ['validation', 'v2', 1],
      ['wallet', 'w1', 1],
      ['auth-ordering', 'a1', 10],
    ];
    const ids: string[] = [];
    for (const [topic, id, delay] of declared) {
      const checkId = `${topic}/${run}-${id}`;
      ids.push(checkId);
      const meta: CheckMeta = { topic, checkId, requirements: [], notes: [], advisories: [], evidence: [] };
      declareRunnable(checkId, {
        readsRun: false,
        execute: (_live, scope) =>
          inExchangeScope(scope, async () => {
            await sleep(delay);
            appendExchange(log, { request: { method: 'GET', url: `http://x/${id}`, headers: {} }, durationMs: delay, curl: '' });
            return {};
          }),
      }, meta);
    }
    sealLanes();
    await Promise.all(ids.map((id) => laneOutcome(id)!));
    expect(readAllExchanges(log).map((x) => x.request.url)).toEqual(['http://x/a1', 'http://x/w1', 'http://x/v1', 'http://x/v2']);
  });

  it('runs the checks of an independent topic in lanes of their own, its log part still in declared order', async () => {
    dir = mkdtempSync(join(tmpdir(), 'lanes-'));
    const log = join(dir, 'exchanges.jsonl');
    resetExchangeLog(log);
    const run = `i${Date.now()}`;
    openLanes({ lanes: 3, checkTimeoutMs: 10_000, logPath: log, topicOrder: ['validation', 'wallet'] });
    // v1 is slow: in a shared lane v2 and v3 would wait for it; independent, they run beside it.
    const declared: Array<[Topic, string, number, boolean]> = [
      ['validation', 'v1', 60, true],
      ['validation', 'v2', 5, true],
      ['validation', 'v3', 5, true],
      ['wallet', 'w1', 5, false],
      ['wallet', 'w2', 5, false],
    ];
    const events: string[] = [];
    const ids: string[] = [];
    for (const [topic, id, delay, independent] of declared) {
      const checkId = `${topic}/${run}-${id}`;
      ids.push(checkId);
      const meta: CheckMeta = { topic, checkId, requirements: [], notes: [], advisories: [], evidence: [] };
      declareRunnable(checkId, {
        readsRun: false,
        ...(independent ? { independent: true } : {}),
        execute: (_live, scope) =>
          inExchangeScope(scope, async () => {
            events.push(`start ${id}`);
            await sleep(delay);
            appendExchange(log, { request: { method: 'GET', url: `http://x/${id}`, headers: {} }, durationMs: delay, curl: '' });
            events.push(`end ${id}`);
            return {};
          }),
      }, meta);
    }
    sealLanes();
    await Promise.all(ids.map((id) => laneOutcome(id)!));
    // v2 and v3 ended while v1 still ran; the wallet's checks stayed one after another.
    expect(events.indexOf('end v2')).toBeLessThan(events.indexOf('end v1'));
    expect(events.indexOf('end v3')).toBeLessThan(events.indexOf('end v1'));
    expect(events.indexOf('end w1')).toBeLessThan(events.indexOf('start w2'));
    expect(readAllExchanges(log).map((x) => x.request.url)).toEqual(['http://x/v1', 'http://x/v2', 'http://x/v3', 'http://x/w1', 'http://x/w2']);
  });

  /** Two lanes over a fresh log, for checks of the cursors topic. */
  const openTwoLanes = () => {
    dir = mkdtempSync(join(tmpdir(), 'lanes-'));
    const log = join(dir, 'exchanges.jsonl');
    resetExchangeLog(log);
    openLanes({ lanes: 2, checkTimeoutMs: 10_000, logPath: log });
    const meta = (checkId: string): CheckMeta => ({ topic: 'cursors', checkId, requirements: [], notes: [], advisories: [], evidence: [] });
    const stamp = Date.now();
    return { id: (name: string) => `cursors/${name}-${stamp}`, meta };
  };

  it('holds a check to its timeout and goes on without it', async () => {
    const { id, meta } = openTwoLanes();
    const [slow, next] = [id('slow'), id('next')];
    let slowScope: ExchangeScope | undefined;
    declareRunnable(slow, { readsRun: false, timeoutMs: 50, execute: (_live, scope) => ((slowScope = scope), new Promise(() => undefined)) }, meta(slow));
    declareRunnable(next, { readsRun: false, execute: async () => ({}) }, meta(next));
    sealLanes();
    const [a, b] = await Promise.all([laneOutcome(slow)!, laneOutcome(next)!]);
    expect(String((a.error as Error).message)).toMatch(/sent nothing for 50 ms/);
    expect(b).toEqual({});
    // Whatever the abandoned check still tries to send is refused (harness/http-client.ts).
    expect(slowScope?.ended).toMatch(/ended at its timeout of 50 ms/);
  });

  it('counts the timeout from the check’s last request: a check paced slower than its timeout goes on while it sends', async () => {
    const { id, meta } = openTwoLanes();
    const [paced, stalled] = [id('paced'), id('stalled')];
    // A request every 40 ms for 1.2 s, three times its timeout of 400 ms (a wide margin for a loaded
    // machine's late timers); then one that sends a little, then waits.
    const sendEvery = async (scope: ExchangeScope, count: number) => {
      for (let i = 0; i < count; i++) {
        scope.sent++;
        await new Promise((r) => setTimeout(r, 40));
      }
    };
    declareRunnable(paced, { readsRun: false, timeoutMs: 400, execute: async (_live, scope) => (await sendEvery(scope, 30), {}) }, meta(paced));
    declareRunnable(stalled, { readsRun: false, timeoutMs: 400, execute: async (_live, scope) => (await sendEvery(scope, 3), new Promise(() => undefined)) }, meta(stalled));
    sealLanes();
    const [a, b] = await Promise.all([laneOutcome(paced)!, laneOutcome(stalled)!]);
    expect(a).toEqual({});
    expect(String((b.error as Error).message)).toMatch(/sent nothing for 400 ms/);
  });
});
