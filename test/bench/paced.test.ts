// The pace a run kept behind a rate limit, read from its exchange log (bench/paced.ts): API
// requests only (the token endpoint is another origin), first to last sent, and the 429s met.
import { describe, expect, it } from 'vitest';
import { keptPace } from '../../bench/paced.ts';

const API = 'http://127.0.0.1:4000';
const line = (url: string, sentAt: number, status: number) => JSON.stringify({ request: { method: 'GET', url }, sentAt, response: { status } });

describe('keptPace', () => {
  it('counts the API origin alone, from the first request sent to the last, and its 429s', () => {
    const lines = [
      line('http://127.0.0.1:4001/oauth2/token', 0, 200),
      line(`${API}/v1/businesses/b/wallet`, 1_000, 200),
      line(`${API}/v1/businesses/b/wallet`, 1_250, 429),
      line('http://127.0.0.1:4001/oauth2/token', 9_000, 200),
      line(`${API}/v1/businesses/b/wallet`, 2_500, 200),
      line(`${API}/v1/businesses/b/wallet`, 3_000, 200),
    ];
    expect(keptPace(lines, API, 5, true)).toEqual({ limit: 5, declared: true, requests: 4, perSecond: 1.5, answers429: 1 });
  });

  it('a log of one request has no pace to tell', () => {
    expect(keptPace([line(`${API}/v1/x`, 1, 200)], API, 5, false).perSecond).toBeNaN();
  });
});
