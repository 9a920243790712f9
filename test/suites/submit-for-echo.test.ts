// A message holding markup (double braces, escapes) is one a target may take or refuse (4.1 rule 7
// leaves it open): taken, it is the body judged; refused with 400/422, a recorded reading and the
// text without its markup sent instead; any other answer fails as a refused valid body does.
import { describe, expect, it } from 'vitest';
import type { ApiRequest, ApiResponse } from '../../harness/client.ts';
import type { CheckContext } from '../../suites/support/check.ts';
import { submitForEcho, type BulkRequestBody } from '../../suites/support/bulk.ts';
import { holdsPlaceholderSyntax } from '../../generators/domain.ts';

const MARKUP: BulkRequestBody = { from: 'ACME', classification: 'transactional', message: ' Hi {{name}} \\n "x" ', recipients: [{ to: '+447700900123' }] };

/** A host answering a submission with placeholders `markupStatus`, any other 202. */
function host(markupStatus: number) {
  const sent: BulkRequestBody[] = [];
  const readings: string[] = [];
  const failures: string[] = [];
  const send = async (request: ApiRequest): Promise<ApiResponse> => {
    const body = request.json as BulkRequestBody;
    sent.push(body);
    const status = holdsPlaceholderSyntax(body.message ?? '') ? markupStatus : 202;
    const json = status === 202 ? { id: 'b', message: body.message } : { code: 'validation_failed' };
    return { status, headers: {}, text: JSON.stringify(json), json, exchange: {} as never };
  };
  const t = {
    api: { send, idempotencyKey: () => `k${sent.length}` },
    fixture: () => 'business',
    reading: (point: string, choice: string) => void readings.push(`${point}=${choice}`),
    evidence: () => undefined,
    fail: (requirement: string) => {
      failures.push(requirement);
      throw new Error(requirement);
    },
  } as unknown as CheckContext;
  return { t, sent, readings, failures };
}

describe('submitForEcho', () => {
  it('a target that takes the markup: the body as sent, one request, reading accepted', async () => {
    const h = host(202);
    const { body } = await submitForEcho(h.t, MARKUP, 'case');
    expect(body).toBe(MARKUP);
    expect(h.sent).toHaveLength(1);
    expect(h.readings).toEqual(['message-markup=accepted']);
  });

  for (const status of [400, 422]) {
    it(`a target that refuses it with ${status}: reading refused, the text without markup sent and judged`, async () => {
      const h = host(status);
      const { body, response } = await submitForEcho(h.t, MARKUP, 'case');
      expect(h.readings).toEqual(['message-markup=refused']);
      expect(h.sent).toHaveLength(2);
      expect(holdsPlaceholderSyntax(body.message!)).toBe(false);
      expect(h.sent[1]).toEqual(body);
      expect(response.status).toBe(202);
      expect(h.failures).toEqual([]);
    });
  }

  it('any other answer fails BULK-ACCEPT-202, with no second submission', async () => {
    const h = host(500);
    await expect(submitForEcho(h.t, MARKUP, 'case')).rejects.toThrow('BULK-ACCEPT-202');
    expect(h.sent).toHaveLength(1);
  });

  it('a plain message takes no reading', async () => {
    const h = host(400);
    await submitForEcho(h.t, { ...MARKUP, message: 'Hello "there" & <you>' }, 'case');
    expect(h.readings).toEqual([]);
    expect(h.sent).toHaveLength(1);
  });
});
