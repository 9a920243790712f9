// examples/session.har is what README and docs/usage.md show `check` on: it must pass, hold only
// the plainly fake credentials, and stay small. (scripts/example-har.ts writes it again.)
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAKE_SECRET, FAKE_TOKEN } from './client.ts';
import { conformance, tempDir } from './support.ts';

const root = new URL('../../', import.meta.url).pathname;
const har = join(root, 'examples', 'session.har');

describe('examples/session.har', () => {
  it('passes check with its env file', async () => {
    const outcome = await conformance(['check', har, '--env-file', join(root, 'examples', 'session.env'), '--report-dir', join(tempDir(), 'r')]);
    expect(outcome.err).toEqual([]);
    expect(outcome.code).toBe(0);
    expect(outcome.out.join('\n')).toContain('verdict: pass');
  });

  it('carries only fake credentials and stays small', () => {
    const text = readFileSync(har, 'utf8');
    expect(statSync(har).size).toBeLessThan(64 * 1024);
    const authorizations = [...text.matchAll(/"name": "authorization",\s*"value": "([^"]+)"/g)].map((m) => m[1]!);
    expect(authorizations.length).toBeGreaterThan(5);
    for (const value of authorizations) {
      if (value.startsWith('Bearer ')) expect(value).toBe(`Bearer ${FAKE_TOKEN}`);
      else expect(Buffer.from(value.replace(/^Basic /, ''), 'base64').toString('utf8')).toMatch(new RegExp(`:${FAKE_SECRET}$`));
    }
    // No JWT (three base64url parts) anywhere: every real token was replaced.
    expect(text).not.toMatch(/eyJ[\w-]+\.[\w-]+\.[\w-]+/);
  });
});
