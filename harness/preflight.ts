// Before any check: the API origin answers like the API, and the token endpoint gives the primary
// application a token. A base URL with a wrong path answers every documented path with a web
// server's HTML 404 page (or redirects to a login page): dozens of failed checks would blame the
// API for a configuration mistake, so the run stops with one line naming the variable (exit 2).
import type { ApiResponse } from './client.ts';
import { HarnessError } from './errors.ts';
import { createApiClient } from './http-client.ts';
import type { SuiteConfig } from '../core/model.ts';

/** A media type the document answers with (application/json, application/problem+json). */
export function isJsonMediaType(contentType: string | undefined): boolean {
  return /^application\/([\w.-]+\+)?json\s*(;|$)/i.test(contentType?.trim() ?? '');
}

/** What an answer was, in a few words: `HTTP 404 text/html`, `a redirect (HTTP 302) to ...`. */
export function describeAnswer(response: Pick<ApiResponse, 'status' | 'headers'>): string {
  const type = response.headers['content-type']?.split(';')[0]?.trim() || 'no content type';
  if (response.status >= 300 && response.status < 400) {
    const location = response.headers.location;
    return `a redirect (HTTP ${response.status}${location ? ` to ${location.slice(0, 120)}` : ''})`;
  }
  return `HTTP ${response.status} ${type}`;
}

/**
 * The API is recognised by any documented answer in a JSON media type. Only when none is (every
 * probe redirected or answered HTML, text or nothing) is the base URL blamed: an API that answers
 * some requests badly is the checks' business, and they fail it (exit 1) with evidence.
 */
function looksLikeTheApi(response: ApiResponse): boolean {
  return response.status >= 100 && !(response.status >= 300 && response.status < 400) && isJsonMediaType(response.headers['content-type']);
}

export async function probeTarget(config: SuiteConfig): Promise<void> {
  const timeoutMs = Math.min(config.settings.timeoutMs, 5_000);
  const probe = createApiClient({
    ...config,
    // Probes are not part of the run's evidence, and do not spend its budget.
    settings: { ...config.settings, timeoutMs, exchangeLogPath: '', maxRequests: 10, concurrency: 1 },
  });
  try {
    const root = await probe.send({ method: 'GET', path: '/v1/', as: 'none', seePacing: true });
    if (root.status === 0) {
      throw new HarnessError('TARGET_UNREACHABLE', `${config.target.baseUrl} did not answer: ${root.exchange.transportError ?? 'no response'}`);
    }
    if (!looksLikeTheApi(root)) {
      // A documented operation, unauthenticated (no effect; the document answers 401 problem+json).
      const businessId = config.fixtures.businessId ?? '00000000-0000-4000-8000-000000000000';
      const path = `/v1/businesses/${businessId}/wallet/balance`;
      const documented = await probe.send({ method: 'GET', path, as: 'none', seePacing: true });
      if (documented.status !== 0 && !looksLikeTheApi(documented)) {
        throw new HarnessError(
          'TARGET_MISCONFIGURED',
          `CONFORMANCE_BASE_URL ${config.target.baseUrl} is probably wrong: it answers documented paths with ${describeAnswer(documented)} (GET ${path}), not an API answer in JSON`,
        );
      }
    }
    await probe.token('primary');
  } finally {
    await probe.close();
  }
}
