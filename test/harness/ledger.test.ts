// The ledger of fixtures spent on hosts (harness/ledger.ts): keyed by host and business, never
// holding a credential, robust to lines cut short, and the choice it makes of a configured list.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseFixture, hostKey, ledgerPath, readSpent, recordSpent, spentEntry, type LedgerScope } from '../../harness/ledger.ts';
import { loadConfig } from '../../harness/config.ts';

const A = '01a1e5ed-e7b7-7698-8e9e-9aac21fb4f93';
const B = '01a1e5ed-e7b8-79c7-9529-768ec2e053d4';
const C = '01a1e5ed-e7b9-799a-886a-293178f150d4';
const BUSINESS = '019a0d77-4d6a-79f9-96a6-77c708a03d67';
const OTHER_BUSINESS = '019c1067-51b2-7e44-b253-fa39cc67c226';
const CANARY = 'ledger-canary-secret-81f2';

const tempDir = () => mkdtempSync(join(tmpdir(), 'conformance-ledger-'));
const scopeIn = (stateDir: string, overrides: Partial<LedgerScope> = {}): LedgerScope => ({
  stateDir,
  baseUrl: 'https://api.sandbox.example/',
  businessId: BUSINESS,
  seed: 42,
  runId: 'conf-test-1',
  ...overrides,
});

describe('the ledger of spent fixtures', () => {
  it('keys entries by host (no credentials, no query, no trailing slash) and business', () => {
    expect(hostKey(`https://user:${CANARY}@api.sandbox.example:8443/v1/?token=${CANARY}`)).toBe('https://api.sandbox.example:8443/v1');
    const dir = tempDir();
    expect(recordSpent(scopeIn(dir, { baseUrl: `https://user:${CANARY}@api.sandbox.example/?k=${CANARY}` }), 'webhookEndpointId', A, 'webhooks/deactivate-204')).toBeUndefined();
    recordSpent(scopeIn(dir, { businessId: OTHER_BUSINESS }), 'webhookEndpointId', B);
    recordSpent(scopeIn(dir, { baseUrl: 'https://other.sandbox.example' }), 'webhookEndpointId', C);
    const text = readFileSync(ledgerPath(dir), 'utf8');
    expect(text).not.toContain(CANARY);
    expect(readSpent(scopeIn(dir), 'webhookEndpointId').map((e) => e.id)).toEqual([A]);
    expect(spentEntry(scopeIn(dir), 'webhookEndpointId', A)).toMatchObject({ seed: 42, runId: 'conf-test-1', check: 'webhooks/deactivate-204', baseUrl: 'https://api.sandbox.example' });
    expect(spentEntry(scopeIn(dir), 'webhookEndpointId', B)).toBeUndefined();
  });

  it('passes over lines cut short or edited by hand, and reads a missing ledger as empty', () => {
    const dir = tempDir();
    expect(readSpent(scopeIn(dir), 'webhookEndpointId')).toEqual([]);
    recordSpent(scopeIn(dir), 'webhookEndpointId', A);
    writeFileSync(ledgerPath(dir), `${readFileSync(ledgerPath(dir), 'utf8')}{"baseUrl":"https://api.sa\nnot json\n[]\n`);
    recordSpent(scopeIn(dir), 'webhookEndpointId', B);
    expect(readSpent(scopeIn(dir), 'webhookEndpointId').map((e) => e.id)).toEqual([A, B]);
  });

  it('says why it could not record, instead of throwing', () => {
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, 'not a folder');
    expect(recordSpent(scopeIn(file), 'webhookEndpointId', A)).toMatch(/could not be written/);
  });

  it('takes the first id not spent and says which; with every one spent, names the run that spent each and what to set', () => {
    const dir = tempDir();
    recordSpent(scopeIn(dir, { seed: 7, runId: 'conf-first' }), 'webhookEndpointId', A, 'webhooks/deactivate-204');
    const spent = readSpent(scopeIn(dir), 'webhookEndpointId');
    const second = chooseFixture('CONFORMANCE_WEBHOOK_ENDPOINT_ID', [A, B, C], spent, '.conformance/spent-fixtures.jsonl');
    expect(second).toMatchObject({ taken: B, line: expect.stringContaining(`spends ${B}, the 2nd of 3 in CONFORMANCE_WEBHOOK_ENDPOINT_ID; 1 spent by earlier runs`) });
    expect(second.usedUp).toBeUndefined();
    const none = chooseFixture('CONFORMANCE_WEBHOOK_ENDPOINT_ID', [A], spent, '.conformance/spent-fixtures.jsonl');
    expect(none.taken).toBeUndefined();
    expect(none.usedUp).toContain(`${A} by run conf-first at `);
    expect(none.usedUp).toContain('(seed 7, webhooks/deactivate-204)');
    expect(none.usedUp).toContain('Set CONFORMANCE_WEBHOOK_ENDPOINT_ID to an active one not yet spent');
  });
});

describe('CONFORMANCE_WEBHOOK_ENDPOINT_ID and CONFORMANCE_STATE_DIR', () => {
  const host = {
    CONFORMANCE_BASE_URL: 'https://api.sandbox.example',
    CONFORMANCE_TOKEN_URL: 'https://auth.sandbox.example/oauth2/token',
    CONFORMANCE_CLIENT_ID: 'c',
    CONFORMANCE_CLIENT_SECRET: CANARY,
    CONFORMANCE_BUSINESS_ID: BUSINESS,
  };

  it('takes a comma-separated list of UUIDs, and the first the ledger in the state folder has not seen spent', () => {
    const cwd = tempDir();
    const fresh = loadConfig({}, { ...host, CONFORMANCE_WEBHOOK_ENDPOINT_ID: `${A}, ${B}` }, cwd);
    expect(fresh.fixtures).toMatchObject({ webhookEndpointIds: [A, B], webhookEndpointId: A });
    expect(fresh.settings.stateDir).toBe(join(cwd, '.conformance'));
    recordSpent(scopeIn(join(cwd, 'state'), { baseUrl: host.CONFORMANCE_BASE_URL }), 'webhookEndpointId', A);
    const next = loadConfig({}, { ...host, CONFORMANCE_WEBHOOK_ENDPOINT_ID: `${A},${B}`, CONFORMANCE_STATE_DIR: 'state' }, cwd);
    expect(next.fixtures.webhookEndpointId).toBe(B);
    expect(next.fixtureLines).toEqual([expect.stringContaining(`spends ${B}, the 2nd of 2`)]);
    const spent = loadConfig({}, { ...host, CONFORMANCE_WEBHOOK_ENDPOINT_ID: A, CONFORMANCE_STATE_DIR: 'state' }, cwd);
    expect(spent.fixtures.webhookEndpointId).toBeUndefined();
    expect(spent.usedUp?.webhookEndpointId).toContain(`every CONFORMANCE_WEBHOOK_ENDPOINT_ID was spent`);
  });

  it('refuses an item that is no UUID, naming it', () => {
    expect(() => loadConfig({}, { ...host, CONFORMANCE_WEBHOOK_ENDPOINT_ID: `${A},nope` }, tempDir())).toThrow(/CONFORMANCE_WEBHOOK_ENDPOINT_ID must list UUIDs, comma-separated \(got "nope"\)/);
  });

  it('an embedded run keeps no ledger (the reference is fresh every run)', () => {
    const config = loadConfig({}, {}, tempDir());
    expect(config.settings.stateDir).toBeUndefined();
  });
});
