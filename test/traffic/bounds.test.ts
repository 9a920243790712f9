// The judge's bounds on a day of traffic. Per-key state lets go of its oldest key at the bound,
// counted: BoundedMap keeps one iterator over its keys rather than starting a new one per eviction
// (bench: 6 % of `check`), so it is held here against a plain model of the rule under any mix of
// sets, re-sets and deletes. Evidence held for long keeps its newest exchanges, and where the
// older ones were. State kept for the whole traffic is bounded and counted too.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EvidenceHold, observe } from '../../traffic/context.ts';
import type { TrafficExchange } from '../../traffic/model.ts';
import { BoundedMap } from '../../traffic/verdicts.ts';

type Step = { set: number } | { remove: number };

/** The rule in its plainest form: keys in insertion order, a re-set keeps its place, the first goes at the bound. */
function model(limit: number, steps: Step[]): { keys: number[]; dropped: number[] } {
  const keys: number[] = [];
  const dropped: number[] = [];
  for (const step of steps) {
    if ('remove' in step) {
      const at = keys.indexOf(step.remove);
      if (at >= 0) keys.splice(at, 1);
    } else if (!keys.includes(step.set)) {
      if (keys.length >= limit) dropped.push(keys.shift()!);
      keys.push(step.set);
    }
  }
  return { keys, dropped };
}

describe('BoundedMap', () => {
  it('lets go of the oldest key at its bound, whatever was set, set again or deleted before', () => {
    const step = fc.oneof(fc.record({ set: fc.integer({ min: 0, max: 12 }) }), fc.record({ remove: fc.integer({ min: 0, max: 12 }) }));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(step, { maxLength: 200 }), (limit, steps) => {
        const dropped: number[] = [];
        const map = new BoundedMap<number, string>(limit, (key, value) => {
          expect(value).toBe(`v${key}`);
          dropped.push(key);
        });
        for (const s of steps) {
          if ('remove' in s) map.delete(s.remove);
          else map.set(s.set, `v${s.set}`);
        }
        const expected = model(limit, steps);
        expect([...map.keys()]).toEqual(expected.keys);
        expect(dropped).toEqual(expected.dropped);
        expect(map.dropped).toBe(expected.dropped.length);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps evicting after the map was emptied and filled again', () => {
    const map = new BoundedMap<number, number>(2);
    for (let i = 0; i < 5; i++) map.set(i, i);
    map.clear();
    for (let i = 10; i < 14; i++) map.set(i, i);
    expect([...map.keys()]).toEqual([12, 13]);
    expect(map.dropped).toBe(5);
  });
});

describe('EvidenceHold', () => {
  const exchange = (n: number): TrafficExchange => ({
    index: n,
    source: `log line ${n}`,
    request: { method: 'GET', url: `http://127.0.0.1:9/v1/businesses/b/sms/messages/m${n}`, headers: { 'x-request-id': `r${n}` } },
    response: { status: 404, headers: { 'content-type': 'application/problem+json' }, body: '{"code":"resource_not_found"}' },
  });

  it('keeps its newest exchanges and, of the older ones, where they were', () => {
    const hold = new EvidenceHold(2);
    const held = [1, 2, 3].map((n) => hold.hold(observe(exchange(n))));
    expect(held.map((h) => h.o?.ex.source)).toEqual([undefined, 'log line 2', 'log line 3']);
    expect(held.map((h) => h.source)).toEqual(['log line 1', 'log line 2', 'log line 3']);
    // Held as kept() holds: the recorded text, without parsed bodies.
    expect(held[2]!.o!.ex.response.body).toBe('{"code":"resource_not_found"}');
    expect(held[2]!.o!.json).toBeUndefined();
  });
});

describe('state a rule keeps for the whole traffic', () => {
  it('is bounded and counted too where a server could make it grow without end (problem codes, deactivated endpoints)', async () => {
    const { judgeTraffic } = await import('../../traffic/judge.ts');
    const { readTrafficEnv } = await import('../../traffic/env.ts');
    const api = 'http://127.0.0.1:9/v1/businesses/019a0000-0000-7000-8000-000000000001';
    const endpoint = (n: number) => `019a0000-0000-7000-8000-${String(n).padStart(12, '0')}`;
    const traffic: TrafficExchange[] = [];
    for (let n = 0; n < 2050; n++) {
      // A code minted per answer, and an endpoint deactivated per request.
      const code = `minted_${n}`;
      traffic.push({ index: traffic.length, source: `t ${traffic.length}`, request: { method: 'GET', url: `${api}/wallet/balance`, headers: { authorization: 'Bearer tok-aaaaaaaaaaaa' } }, response: { status: 409, headers: { 'content-type': 'application/problem+json', 'x-request-id': `r${n}` }, body: JSON.stringify({ type: `https://p.test/${code}`, title: code, status: 409, detail: 'x', code, instance: '/x', request_id: `r${n}` }) } });
      traffic.push({ index: traffic.length, source: `t ${traffic.length}`, request: { method: 'DELETE', url: `${api}/webhook-endpoints/${endpoint(n)}`, headers: { authorization: 'Bearer tok-aaaaaaaaaaaa' } }, response: { status: 204, headers: { 'x-request-id': `d${n}` } } });
    }
    const notes = judgeTraffic(traffic, { env: readTrafficEnv(undefined) }).result.topics.flatMap((t) => t.checks).flatMap((c) => c.notes);
    expect(notes).toContain('2 problem codes and their first titles let go at the bound of 2048 kept at once: exchanges about them later were judged without them');
    expect(notes).toContain('2 deactivated webhook endpoints let go at the bound of 2048 kept at once: exchanges about them later were judged without them');
  });
});
