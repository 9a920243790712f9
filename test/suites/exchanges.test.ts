// suites/support/exchanges.ts: which logged exchanges the cross-topic checks judge.
import { describe, expect, it } from 'vitest';
import type { SuiteConfig } from '../../core/model.ts';
import { isApiUrl } from '../../suites/support/exchanges.ts';

const config = (baseUrl: string, tokenUrl: string) => ({ target: { baseUrl, tokenUrl } }) as SuiteConfig;

describe('isApiUrl', () => {
  it('takes URLs under the API base and nothing outside it', () => {
    const c = config('http://127.0.0.1:8080/api', 'http://127.0.0.1:9090/oauth2/token');
    expect(isApiUrl(c, 'http://127.0.0.1:8080/api/v1/businesses/x/wallet/balance')).toBe(true);
    expect(isApiUrl(c, 'http://127.0.0.1:8080/apiv1')).toBe(false);
    expect(isApiUrl(c, 'http://127.0.0.1:9090/oauth2/token')).toBe(false);
  });

  it('leaves out the token endpoint when it shares the API origin', () => {
    const c = config('http://127.0.0.1:8080', 'http://127.0.0.1:8080/oauth2/token');
    expect(isApiUrl(c, 'http://127.0.0.1:8080/oauth2/token')).toBe(false);
    expect(isApiUrl(c, 'http://127.0.0.1:8080/v1/businesses/x/wallet/balance')).toBe(true);
  });
});
