// The run's configuration and client inside a suite worker, built once per worker.
import type { ApiClient } from '../../harness/client.ts';
import type { SuiteConfig } from '../../core/model.ts';
import { createApiClient } from '../../harness/http-client.ts';
import { providedConfig } from './declare.ts';

let cached: Promise<{ config: SuiteConfig; api: ApiClient }> | undefined;

export function suiteContext(): Promise<{ config: SuiteConfig; api: ApiClient }> {
  cached ??= (async () => {
    const config = providedConfig();
    return { config, api: createApiClient(config) };
  })();
  return cached;
}
