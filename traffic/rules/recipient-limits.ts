// Recipient limits (section 4.1, 8): more than 1,000 entries, duplicates and invalid numbers
// counted, are refused as a whole with 422 recipient_limit_exceeded; exactly 1,000 valid entries
// are never refused for their number.
import { isValidText as isValid } from '../valid.ts';
import { codeOf, describe, objectOf, type JudgeContext, type Observed } from '../context.ts';
import type { CheckDef, Reducer, Verdicts } from '../verdicts.ts';
import { requestDefects } from './request-validity.ts';

const ID = 'traffic/recipient-limits/maximum';

export const checks: CheckDef[] = [
  { id: ID, topic: 'recipient-limits', title: 'a submission of more than 1,000 entries (duplicates and invalid numbers counted) gets 422 recipient_limit_exceeded; 1,000 valid entries are not refused for their number', requirements: ['RLIM-MAX-1000', 'RLIM-COUNT-ALL-ENTRIES', 'RLIM-COUNT-INVALID-ENTRIES', 'RLIM-NO-PARTIAL', 'RLIM-AT-MAX-ACCEPTED'] },
];

export function start(v: Verdicts, ctx: JudgeContext): Reducer {
  const see = (o: Observed): void => {
    if (o.op?.operationId !== 'createSmsBulkMessage' || o.pacing) return;
    const recipients = objectOf(o.requestJson)?.recipients;
    if (!Array.isArray(recipients)) return;
    const defects = requestDefects(o, ctx);
    if (recipients.length > 1000) {
      const numbers = recipients.map((r) => objectOf(r)?.to);
      const distinct = new Set(numbers).size;
      const invalid = numbers.some((n) => !isValid('E164PhoneNumber', n));
      // Other faults of the request (key, fields, content type) may be answered first.
      const otherFaults = defects.some((d) => d.kind === 'other');
      const rule = invalid ? 'RLIM-COUNT-INVALID-ENTRIES' : distinct < recipients.length ? 'RLIM-COUNT-ALL-ENTRIES' : 'RLIM-MAX-1000';
      if (o.status === 422 && codeOf(o) === 'recipient_limit_exceeded') v.pass(ID);
      else if (o.status >= 200 && o.status < 300) {
        // Accepted: intake counts above 1,000 show every entry was counted, so the maximum itself failed.
        const intake = objectOf(objectOf(o.json)?.intake) ?? {};
        const counted = ['good', 'bad', 'empty'].reduce((sum, k) => sum + (typeof intake[k] === 'number' ? (intake[k] as number) : 0), 0);
        const broken = counted > 1000 || rule === 'RLIM-COUNT-INVALID-ENTRIES' ? 'RLIM-MAX-1000' : rule;
        v.fail(ID, broken, `422 recipient_limit_exceeded for ${recipients.length} entries`, `${describe(o)} (accepted${counted > 0 ? `, ${counted} entries counted` : ''})`, [o]);
      }
      else if (o.status === 401 || o.status === 403 || o.status === 404 || otherFaults) v.reading(ID, 'other-fault-first', 'other-fault', [o], describe(o));
      else v.fail(ID, rule, `422 recipient_limit_exceeded for ${recipients.length} entries${invalid ? ', some of them invalid numbers' : ''}`, describe(o), [o]);
    } else if (recipients.length === 1000 && defects.length === 0) {
      v.judge(ID, 'RLIM-AT-MAX-ACCEPTED', '1,000 valid entries not refused for their number', o.status === 422 && codeOf(o) === 'recipient_limit_exceeded' ? describe(o) : undefined, [o]);
    }
  };
  return { see };
}
