// Compressed and large input: a gzip file is told by its content (whatever its name) and judged as
// the plain file is; a cut or corrupt gzip stream is one clear line; zstd is read where Node has a
// decoder and refused by name where it has none; a log of many exchanges no longer overflows the stack.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readTraffic } from '../../traffic/read.ts';
import { zstdSupported } from '../../traffic/source.ts';
import { conformance, tempDir } from './support.ts';

const root = new URL('../../', import.meta.url).pathname;
const har = join(root, 'examples', 'session.har');
const env = join(root, 'examples', 'session.env');

/** examples/session.har as a run's exchanges.jsonl (one exchange a line). */
function asJsonl(): string {
  const doc = JSON.parse(readFileSync(har, 'utf8')) as { log: { entries: any[] } };
  return doc.log.entries
    .map((e) => JSON.stringify({
      request: { method: e.request.method, url: e.request.url, headers: Object.fromEntries(e.request.headers.map((h: any) => [h.name, h.value])), ...(e.request.postData ? { body: e.request.postData.text } : {}) },
      response: { status: e.response.status, headers: Object.fromEntries(e.response.headers.map((h: any) => [h.name, h.value])), body: e.response.content.text ?? '' },
    }))
    .join('\n');
}

const statuses = (dir: string) => {
  const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
  return report.topics.flatMap((t: any) => t.checks.map((c: any) => `${c.id}:${c.status}`));
};

describe('check on compressed traffic', () => {
  it.each([
    ['a gzipped HAR named .har', 'session.har', () => gzipSync(readFileSync(har))],
    ['a gzipped exchanges.jsonl named .gz', 'exchanges.jsonl.gz', () => gzipSync(asJsonl())],
    ['a plain file named .gz', 'plain.gz', () => readFileSync(har)],
  ])('%s is judged as the plain file is', async (_name, file, bytes) => {
    const dir = tempDir();
    writeFileSync(join(dir, file), bytes());
    const plain = await conformance(['check', har, '--env-file', env, '--report-dir', join(dir, 'plain')]);
    const packed = await conformance(['check', join(dir, file), '--env-file', env, '--report-dir', join(dir, 'packed')]);
    expect(packed.err).toEqual([]);
    expect(packed.code).toBe(plain.code);
    expect(statuses(join(dir, 'packed'))).toEqual(statuses(join(dir, 'plain')));
  });

  it.each([
    ['a cut gzip stream', (b: Buffer) => b.subarray(0, b.length - 200), 'TRAFFIC_TRUNCATED', /truncated/],
    ['a corrupt gzip stream', (b: Buffer) => Buffer.concat([b.subarray(0, 40), Buffer.alloc(400, 7), b.subarray(440)]), 'TRAFFIC_UNREADABLE', /not a valid gzip stream/],
  ])('%s: one line, its code, exit 2', async (_name, damage, code, message) => {
    const dir = tempDir();
    const file = join(dir, 'bad.har.gz');
    writeFileSync(file, damage(gzipSync(readFileSync(har))));
    const outcome = await conformance(['check', file, '--report-dir', join(dir, 'r')]);
    expect(outcome.code).toBe(2);
    expect(outcome.err).toHaveLength(1);
    expect(outcome.err[0]).toContain(`[${code}]`);
    expect(outcome.err[0]).toMatch(message);
  });

  it.runIf(!zstdSupported())('refuses zstd by name where this Node has no decoder', async () => {
    const dir = tempDir();
    const file = join(dir, 'session.har.zst');
    writeFileSync(file, Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), Buffer.alloc(64)]));
    const outcome = await conformance(['check', file, '--report-dir', join(dir, 'r')]);
    expect(outcome.code).toBe(2);
    expect(outcome.err[0]).toMatch(/zstd-compressed.*Node 22\.15/);
  });

  it.runIf(zstdSupported())('reads zstd where this Node has a decoder', async () => {
    const dir = tempDir();
    const file = join(dir, 'session.bin');
    const compress = (zlib as unknown as { zstdCompressSync: (b: Buffer) => Buffer }).zstdCompressSync;
    writeFileSync(file, compress(readFileSync(har)));
    const outcome = await conformance(['check', file, '--env-file', env, '--report-dir', join(dir, 'r')]);
    expect(outcome.err).toEqual([]);
    expect(outcome.code).toBe(0);
  });

  it('reads a log of 300,000 exchanges without overflowing the stack', async () => {
    const dir = tempDir();
    const line = `${asJsonl().split('\n')[0]}\n`;
    const file = join(dir, 'many.jsonl.gz');
    writeFileSync(file, gzipSync(line.repeat(300_000)));
    const { exchanges } = await readTraffic([file]);
    expect(exchanges).toHaveLength(300_000);
    expect(exchanges.at(-1)!.index).toBe(299_999);
  }, 60_000);
});
