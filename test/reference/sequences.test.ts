// Rules only a sequence of operations shows (the sequences topic): the reference holds each when one
// operation follows another on the same bulk, key or cursor.
import { describe, expect, it } from 'vitest';
import { freshKey, messageBody, useReference } from './helpers.ts';

const h = useReference();
const rows = (bulkId: string, query: Record<string, string> = {}) => h.call('GET', h.paths.rows(h.b, bulkId), { query });

describe('sequences of operations', () => {
  it('a conflicting repeat changes nothing of the original bulk; the key stays bound to the first payload [SEQ-REPEAT-CHANGES-NOTHING, SEQ-KEY-BOUND-TO-FIRST]', async () => {
    const key = freshKey();
    const body = messageBody(h);
    const first = await h.submit(body, { key });
    expect((await h.submit(messageBody(h, { message: 'other' }), { key })).status).toBe(409);
    expect((await h.call('GET', h.paths.bulk(h.b, first.json.id))).json.intake).toEqual(first.json.intake);
    const again = await h.submit(body, { key });
    expect(again.status).toBe(202);
    expect(again.json.id).toBe(first.json.id);
  });

  it('a replay after reads answers as the first time [SEQ-REPLAY-AFTER-ANY]', async () => {
    const key = freshKey();
    const body = messageBody(h);
    const first = await h.submit(body, { key });
    await h.call('GET', h.paths.bulk(h.b, first.json.id));
    await rows(first.json.id);
    const replay = await h.submit(body, { key });
    expect(replay.status).toBe(first.status);
    expect(replay.json).toEqual(first.json);
  });

  it('listings of one bulk agree with each other, and a cursor presented twice gives the same page [SEQ-LISTING-CONSISTENT, SEQ-CURSOR-REPLAYS-PAGE]', async () => {
    const bulk = await h.submit(messageBody(h), { key: freshKey() });
    const whole = (await rows(bulk.json.id)).json.data.map((r: { id: string }) => r.id);
    const page = await rows(bulk.json.id, { limit: '1' });
    const cursor = page.json.pagination.next_cursor as string;
    const next = await rows(bulk.json.id, { limit: '1', cursor });
    const nextAgain = await rows(bulk.json.id, { limit: '1', cursor });
    expect([page.json.data[0].id, next.json.data[0].id]).toEqual(whole.slice(0, 2));
    expect(nextAgain.json.data).toEqual(next.json.data);
  });

  it('a bulk read or listed by its owner stays unknown under another business [SEQ-OWNERSHIP-AFTER-ANY]', async () => {
    const bulk = await h.submit(messageBody(h), { key: freshKey() });
    await h.call('GET', h.paths.bulk(h.b, bulk.json.id));
    await rows(bulk.json.id);
    expect((await h.call('GET', h.paths.bulk(h.f.otherBusinessId, bulk.json.id))).status).not.toBe(200);
  });

  it('delivery reporting once complete stays complete with the same resolved outcomes [BULK-DELIVERY-COMPLETE-MEANING]', async () => {
    const bulk = await h.submit(messageBody(h), { key: freshKey() });
    const read = async (ms: number) => {
      await h.control('POST', '/clock/advance', { ms });
      return (await h.call('GET', h.paths.bulk(h.b, bulk.json.id))).json.delivery_summary;
    };
    const first = await read(60_000);
    const later = await read(3_600_000);
    expect(first?.complete).toBe(true);
    expect(later).toMatchObject({ complete: true, outcomes_resolved: first.outcomes_resolved });
  });
});
