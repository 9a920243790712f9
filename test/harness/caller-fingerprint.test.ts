import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { callerFingerprinter } from '../../harness/caller-fingerprint.ts';

const dirs: string[] = [];
const runLog = () => {
  const dir = mkdtempSync(join(tmpdir(), 'caller-key-'));
  dirs.push(dir);
  return join(dir, 'exchanges.jsonl');
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('the caller fingerprint of the exchange log', () => {
  const token = 'sandbox-token'; // a guessable static token: the case a plain hash exposes

  it('is the same for one token across the clients of one run, and tells tokens apart', () => {
    const log = runLog();
    const [a, b] = [callerFingerprinter(log), callerFingerprinter(log)];
    expect(a(token)).toMatch(/^token:[0-9a-f]{16}$/);
    expect(b(token)).toBe(a(token));
    expect(a('another-token')).not.toBe(a(token));
    expect((statSync(join(log, '..', 'caller-key')).mode & 0o777).toString(8)).toBe('600');
  });

  it('is unrelated across runs and is not a plain hash of the token', () => {
    const fingerprint = callerFingerprinter(runLog())(token);
    expect(callerFingerprinter(runLog())(token)).not.toBe(fingerprint);
    expect(fingerprint).not.toBe(`token:${createHash('sha256').update(token).digest('hex').slice(0, 16)}`);
  });

  it('stays the same for a token after many others (each is hashed once, in a bounded memo)', () => {
    const of = callerFingerprinter(runLog());
    const first = of(token);
    const others = Array.from({ length: 200 }, (_, i) => of(`forged-${i}`));
    expect(new Set(others).size).toBe(200);
    expect(of(token)).toBe(first);
  });
});
