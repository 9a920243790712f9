// Hand-made collected checks (one of each outcome), for tests of the result and the renderers
// that need no vitest run.
import type { CollectedCheck } from '../../harness/result.ts';
import type { Exchange } from '../../core/model.ts';

export function exchange(overrides: { status?: number; body?: string; requestBody?: string } = {}): Exchange {
  return {
    request: {
      method: 'POST',
      url: 'http://127.0.0.1:4010/v1/businesses/0190a1b2-0000-7000-8000-000000000001/sms/bulk-messages',
      headers: { authorization: 'Bearer <redacted>', 'content-type': 'application/json', 'idempotency-key': 'run-7-k1' },
      body: overrides.requestBody ?? '{"from":"ACME","recipients":[]}',
    },
    response: {
      status: overrides.status ?? 400,
      headers: { 'content-type': 'application/problem+json', 'x-request-id': 'run-7.0001' },
      body: overrides.body ?? '{"code":"validation_failed","detail":"recipients: 1 to 1000 items"}',
    },
    durationMs: 4,
    curl: "curl -sS -X POST 'http://127.0.0.1:4010/v1/businesses/0190a1b2-0000-7000-8000-000000000001/sms/bulk-messages' -H 'authorization: Bearer <redacted>' --data-raw '{\"from\":\"ACME\",\"recipients\":[]}'",
  };
}

function base(id: string, title: string, requirements: string[]): Omit<CollectedCheck, 'status'> {
  return { topic: 'wallet', checkId: `wallet/${id}`, title, requirements, notes: [], advisories: [], evidence: [], durationMs: 12 };
}

export function sampleChecks(): CollectedCheck[] {
  return [
    {
      ...base('pass', 'returns the balance [FIX-MUST-A]', ['FIX-MUST-A']),
      status: 'pass',
      notes: ['the target chose reading B'],
      readings: [
        { point: 'empty-cursor', choice: 'refused' },
        { point: 'last-page-cursor', choice: 'cursor', detail: 'next_cursor "abc"' },
        { point: 'last-page-cursor', choice: 'cursor', detail: 'next_cursor "def"' },
      ],
      seed: 42,
    },
    {
      ...base('fail', 'answers 200 to a permitted caller [FIX-MUST-B]', ['FIX-MUST-A', 'FIX-MUST-B']),
      status: 'fail',
      evidence: [exchange({ status: 500, body: '{"code":"internal_error"}' })],
      failure: {
        requirement: 'FIX-MUST-B',
        section: '4.5',
        expected: '200 with a balance',
        actual: '500 internal_error',
        message: 'Received: 500 internal_error / Expected: 200 with a balance (FIX-MUST-B)',
      },
      seed: 42,
      counterexample: '[{"limit":1001}]',
    },
    {
      ...base('warn', 'carries an instance member [FIX-SHOULD]', ['FIX-SHOULD']),
      topic: 'problem-details',
      checkId: 'problem-details/warn',
      status: 'warn',
      evidence: [exchange()],
      failure: {
        requirement: 'FIX-SHOULD',
        section: '7',
        expected: 'an instance member',
        actual: 'none',
        message: 'Received: none / Expected: an instance member (FIX-SHOULD)',
      },
      advisories: ['the detail repeats the title'],
    },
    {
      ...base('skip', 'refuses a limited caller [FIX-NEEDS-FIXTURE]', ['FIX-NEEDS-FIXTURE']),
      status: 'skip',
      skipReason: 'CONFORMANCE_LIMITED_CLIENT_ID is not set',
      durationMs: 0,
    },
    {
      ...base('error', 'accepts a submission [FIX-ERRORED]', ['FIX-ERRORED']),
      status: 'error',
      errorMessage: 'TypeError: fetch failed: connect ECONNREFUSED 127.0.0.1:1',
    },
  ];
}
