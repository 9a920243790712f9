// The run's configuration and client inside a suite worker, built once per worker.
import { inject } from 'vitest';
import type { ApiClient } from '../../harness/client.ts';
import type { SuiteConfig } from '../../core/model.ts';
import { createApiClient } from '../../harness/http-client.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    conformance: SuiteConfig;
  }
}

let cached: Promise<{ config: SuiteConfig; api: ApiClient }> | undefined;

export function suiteContext(): Promise<{ config: SuiteConfig; api: ApiClient }> {
  cached ??= (async () => {
    const config = inject('conformance');
    return { config, api: createApiClient(config) };
  })();
  return cached;
}
