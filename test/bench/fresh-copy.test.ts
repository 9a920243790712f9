// The bench's large logs are copies of one run's log with ids of their own: an id must move alike in
// a body and in its variant written with escapes, or the copy is no faithful traffic any more.
import { describe, expect, it } from 'vitest';
import { freshCopy } from '../../bench/traffic-check.ts';

const template = '019a1819-5313-770d-ae12-757aa37c2aa2';
const escaped = template.replace(/[0-9]/g, (d) => `\\u003${d}`);
const line = (body: string) => JSON.stringify({ request: { method: 'POST', url: 'http://h/v1/x', headers: {}, body }, response: { status: 202, headers: {}, body: '{}' } });
const bodyOf = (text: string) => JSON.parse((JSON.parse(text) as { request: { body: string } }).request.body) as { template_id: string };

describe('freshCopy', () => {
  it('moves an id written with escapes like the same id written plainly', () => {
    const log = `${line(JSON.stringify({ template_id: template }))}\n${line(`{"template_id":"${escaped}"}`)}\n`;
    const [plain, variant] = freshCopy(log, 3).trimEnd().split('\n');
    expect(bodyOf(variant!)).toEqual(bodyOf(plain!));
    expect(bodyOf(plain!).template_id).not.toBe(template);
  });

  it('leaves the first copy as written', () => {
    const log = `${line(`{"template_id":"${escaped}"}`)}\n`;
    expect(freshCopy(log, 0)).toBe(log);
  });
});
