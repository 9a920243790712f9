// X-Request-Id on every answer of the API (section 4.0, 7): a valid client value echoed, a missing
// or invalid one replaced by a generated value of the same shape, and a problem's request_id equal
// to the header. Pacing answers (429/503) are judged too: the header belongs to every response.
import { kept, objectOf, observe, type Observed } from '../context.ts';
import type { TrafficExchange } from '../model.ts';
import { BoundedMap, STATE_LIMIT, type CheckDef, type Reducer, type Verdicts } from '../verdicts.ts';

const EVERY = 'traffic/request-id/every-response';
const ECHO = 'traffic/request-id/echo';
const REPLACE = 'traffic/request-id/replace-invalid';
const PROBLEM = 'traffic/request-id/problem-match';

export const checks: CheckDef[] = [
  { id: EVERY, topic: 'request-id', title: 'every answer of the API carries an X-Request-Id of 1 to 128 letters, digits, dots, underscores or hyphens, generated when the request had none (never the id another request sent)', requirements: ['RID-EVERY-RESPONSE', 'RID-GENERATE-MISSING', 'RID-FORMAT'] },
  { id: ECHO, topic: 'request-id', title: 'a valid X-Request-Id sent is echoed unchanged', requirements: ['RID-ECHO', 'RID-LENGTH-BOUNDARY'] },
  { id: REPLACE, topic: 'request-id', title: 'an invalid X-Request-Id sent is replaced by a generated one, and not refused for it', requirements: ['RID-REPLACE-INVALID', 'RID-INVALID-NOT-REJECTED'] },
  { id: PROBLEM, topic: 'request-id', title: "a problem's request_id equals the X-Request-Id header of its answer", requirements: ['RID-PROBLEM-MATCH'] },
];

export const VALID_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

export function start(v: Verdicts): Reducer {
  /** The ids requests sent lately (first sent first): a generated id is new, never one of them. */
  const sentIds = new BoundedMap<string, TrafficExchange>(STATE_LIMIT);
  const see = (o: Observed): void => {
    if (!(o.op || o.unknownApiPath)) return;
    const returned = o.returnedRequestId;
    const sent = o.sentRequestId;
    if (sent !== undefined) {
      // The exchange as recorded (no copy per exchange): read again only for a violation's evidence.
      if (!sentIds.has(sent)) sentIds.set(sent, o.ex);
    }
    if (returned === undefined) {
      v.fail(EVERY, sent === undefined ? 'RID-GENERATE-MISSING' : 'RID-EVERY-RESPONSE', 'an X-Request-Id response header', 'none', [o]);
      return;
    }
    if (sent === undefined) {
      // A value another request sent as its own is no id generated for this one (a request id shared between requests).
      const other = sentIds.get(returned);
      if (other) v.fail(EVERY, 'RID-GENERATE-MISSING', 'a newly generated X-Request-Id for a request that sent none', `${JSON.stringify(returned.slice(0, 140))}, the id ${other.source} sent`, [kept(observe(other)), o]);
    }
    v.judge(EVERY, 'RID-FORMAT', '1 to 128 characters of A-Z a-z 0-9 . _ -', VALID_REQUEST_ID.test(returned) ? undefined : `${JSON.stringify(returned.slice(0, 140))} (${returned.length} characters)`, [o]);
    if (sent !== undefined) {
      if (VALID_REQUEST_ID.test(sent)) {
        v.judge(ECHO, 'RID-ECHO', `the value sent (${sent.length} characters) echoed`, returned === sent ? undefined : `${JSON.stringify(returned)} (${returned.length} characters)`, [o]);
      } else {
        v.judge(REPLACE, 'RID-REPLACE-INVALID', 'a generated value in place of the invalid one sent', returned === sent ? 'the invalid value echoed' : undefined, [o]);
      }
    }
    const body = objectOf(o.json);
    if (o.status >= 400 && body && 'request_id' in body) {
      v.judge(PROBLEM, 'RID-PROBLEM-MATCH', `request_id equal to the header ${returned}`, body.request_id === returned ? undefined : `request_id ${JSON.stringify(body.request_id)}`, [o]);
    }
  };
  return { see };
}
