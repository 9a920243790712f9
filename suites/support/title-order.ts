// Two refusals alike but for their title (same status and code) tell a client which object exists
// only if each title goes with its object. A host that writes a title from the answer before it
// (blind10-problem-title-of-previous-code) differs by order, not by object: that is
// problem-details/title-stable's finding, and a concealment check failing a must for it would block
// a release for a should. Asked again in both orders, a title that goes with its object stays.
import type { ApiRequest, ApiResponse } from '../../harness/client.ts';
import type { CheckContext } from './check.ts';
import { codeOf } from './problem.ts';

/** What one confirmation sends: both requests again, in each order. */
export const TITLE_CONFIRMATION_REQUESTS = 4;

const titleOf = (r: ApiResponse): unknown => (r.json as { title?: unknown } | undefined)?.title;

/** The differences between two answers (as shapeDifferences or compareAnswers word them) are in the title alone. */
export const onlyTitleDiffers = (diffs: string[]): boolean => diffs.length > 0 && diffs.every((d) => /^(member )?title\b/.test(d));

export interface Asked {
  request: ApiRequest;
  res: ApiResponse;
}

/**
 * Sends `b` then `a`, then `a` then `b` again, and tells whether every title stayed with its
 * request (twice, each order once: a title taken from whatever answer came before may match once
 * by chance, on a host that answers mostly one code). An answer again of another status or code
 * cannot say (a 5xx, a pacing refusal): the difference is kept as found.
 */
export async function titlesFollowObjects(t: CheckContext, a: Asked, b: Asked): Promise<{ follows: boolean; seen: string }> {
  const again: Array<[Asked, ApiResponse]> = [];
  for (const x of [b, a, a, b]) again.push([x, await t.api.send(x.request)]);
  const seen = `asked again in both orders: ${again.map(([, r]) => JSON.stringify(titleOf(r))).join(', ')}`;
  const same = (x: ApiResponse, y: ApiResponse) => x.status === y.status && codeOf(x.json) === codeOf(y.json);
  if (again.some(([x, r]) => !same(r, x.res))) return { follows: true, seen };
  return { follows: again.every(([x, r]) => titleOf(r) === titleOf(x.res)), seen };
}

/** The note for a title difference set aside. */
export const titleSetAside = (what: string, seen: string) =>
  `${what} differ only in their title, which follows the order of the answers, not the object (${seen}): not an existence leak; problem-details/title-stable judges titles`;
