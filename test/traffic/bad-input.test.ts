// Input `check` cannot judge: one clear line each, a stable code, exit 2, no stack trace and no
// report written (not even part of one).
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyHar } from './client.ts';
import { conformance, tempDir, writeJson } from './support.ts';

const apiEntry = (url: string, withResponse = true) => ({
  startedDateTime: new Date().toISOString(),
  request: { method: 'GET', url, headers: [{ name: 'Authorization', value: 'Bearer canary-token-0123456789' }] },
  ...(withResponse ? { response: { status: 200, headers: [], content: { text: '{}' } } } : {}),
});

const cases: Array<[string, (dir: string) => string, string, RegExp]> = [
  ['a text file', (dir) => (writeFileSync(join(dir, 'notes.txt'), 'hello, not traffic\n'), join(dir, 'notes.txt')), 'TRAFFIC_UNRECOGNIZED', /neither a HAR 1\.2 file nor an exchanges\.jsonl/],
  ['JSON that is no HAR', (dir) => writeJson(dir, 'other.json', { hello: 'world' }), 'TRAFFIC_UNRECOGNIZED', /not a HAR file/],
  ['a truncated HAR', (dir) => {
    const text = JSON.stringify({ log: { version: '1.2', entries: [apiEntry('http://api.test/v1/businesses/x/wallet/balance')] } });
    writeFileSync(join(dir, 'cut.har'), text.slice(0, text.length - 40));
    return join(dir, 'cut.har');
  }, 'TRAFFIC_TRUNCATED', /truncated/],
  ['a truncated exchanges.jsonl', (dir) => {
    const line = JSON.stringify({ request: { method: 'GET', url: 'http://api.test/v1/x', headers: {} }, response: { status: 200, headers: {}, body: '' }, durationMs: 1, curl: '' });
    writeFileSync(join(dir, 'exchanges.jsonl'), `${line}\n${line.slice(0, 30)}`);
    return join(dir, 'exchanges.jsonl');
  }, 'TRAFFIC_TRUNCATED', /truncated/],
  ['a HAR with no exchange to the API', (dir) => writeJson(dir, 'web.har', { log: { version: '1.2', entries: [apiEntry('https://www.example.test/index.html')] } }), 'TRAFFIC_NO_API_EXCHANGE', /no exchange with a documented operation/],
  ['a HAR entry without a response', (dir) => writeJson(dir, 'half.har', { log: { version: '1.2', entries: [apiEntry('http://api.test/v1/businesses/019a0000-0000-7000-8000-000000000000/wallet/balance', false)] } }), 'TRAFFIC_NO_RESPONSE', /entry 1 .* has no response/],
  ['a file that does not exist', (dir) => join(dir, 'missing.har'), 'TRAFFIC_UNREADABLE', /cannot read/],
  ['an empty file', (dir) => (writeFileSync(join(dir, 'empty.har'), ''), join(dir, 'empty.har')), 'TRAFFIC_UNRECOGNIZED', /is empty/],
];

describe('check refuses input it cannot judge', () => {
  it.each(cases)('%s: one line, its code, exit 2, nothing written', async (_name, make, code, message) => {
    const dir = tempDir();
    const file = make(dir);
    const reports = join(dir, 'reports');
    const outcome = await conformance(['check', file, '--report-dir', reports]);
    expect(outcome.code).toBe(2);
    expect(outcome.err).toHaveLength(1);
    expect(outcome.err[0]).toMatch(message);
    expect(outcome.err[0]).toContain(`[${code}]`);
    expect(outcome.err[0]).not.toContain('canary-token');
    expect(outcome.out).toEqual([]);
    expect(existsSync(reports)).toBe(false);
  });

  it('needs a file', async () => {
    const outcome = await conformance(['check']);
    expect(outcome.code).toBe(2);
    expect(outcome.err[0]).toContain('CONF_INVALID_VALUE');
  });

  it('reads an empty HAR as no exchange to the API', async () => {
    const dir = tempDir();
    const outcome = await conformance(['check', writeJson(dir, 'none.har', emptyHar()), '--report-dir', join(dir, 'r')]);
    expect(outcome.code).toBe(2);
    expect(outcome.err[0]).toContain('TRAFFIC_NO_API_EXCHANGE');
  });
});
