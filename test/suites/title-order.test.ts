// A title difference alone counts as an existence leak only when the titles stay with their
// objects asked again in both orders (suites/support/title-order.ts).
import { describe, expect, it } from 'vitest';
import type { ApiRequest, ApiResponse } from '../../harness/client.ts';
import type { CheckContext } from '../../suites/support/check.ts';
import { onlyTitleDiffers, titlesFollowObjects } from '../../suites/support/title-order.ts';

const problem = (title: string, status = 404, code = 'resource_not_found') => ({ status, json: { title, code, status } }) as unknown as ApiResponse;
const request = (path: string): ApiRequest => ({ method: 'GET', path });

/** A host answering each request by `answer(path, previous answer's title)`. */
function host(answer: (path: string, previous: string) => ApiResponse): { t: CheckContext; sent: string[] } {
  let previous = 'Resource not found';
  const sent: string[] = [];
  const send = async (r: ApiRequest) => {
    sent.push(r.path);
    const res = answer(r.path, previous);
    previous = (res.json as { title: string }).title;
    return res;
  };
  return { t: { api: { send } } as unknown as CheckContext, sent };
}

describe('a title difference set aside unless it goes with the objects', () => {
  it('tells title-only differences from any other', () => {
    expect(onlyTitleDiffers(['title "a" vs "b"'])).toBe(true);
    expect(onlyTitleDiffers(['member title'])).toBe(true);
    expect(onlyTitleDiffers(['title "a" vs "b"', 'detail "x" vs "y"'])).toBe(false);
    expect(onlyTitleDiffers([])).toBe(false);
  });

  it('a title of its own for the foreign object, every time: it follows the objects', async () => {
    const { t, sent } = host((path) => problem(path === '/foreign' ? 'Message not accessible' : 'Resource not found'));
    const a = { request: request('/foreign'), res: problem('Message not accessible') };
    const b = { request: request('/unknown'), res: problem('Resource not found') };
    expect((await titlesFollowObjects(t, a, b)).follows).toBe(true);
    expect(sent).toEqual(['/unknown', '/foreign', '/foreign', '/unknown']);
  });

  it('a title taken from the previous answer: it follows the order, even where one order matches by chance', async () => {
    // The first pass (b, a) gives b the title a had and a the title b had; only the other order tells.
    const { t } = host((_path, previous) => problem(previous));
    const a = { request: request('/foreign'), res: problem('Permission denied') };
    const b = { request: request('/unknown'), res: problem('Resource not found') };
    expect((await titlesFollowObjects(t, a, b)).follows).toBe(false);
  });

  it('an answer again of another status or code cannot say: the difference is kept', async () => {
    const { t } = host((path) => (path === '/foreign' ? problem('Service unavailable', 503, 'service_unavailable') : problem('Resource not found')));
    const a = { request: request('/foreign'), res: problem('Message not accessible') };
    const b = { request: request('/unknown'), res: problem('Resource not found') };
    expect((await titlesFollowObjects(t, a, b)).follows).toBe(true);
  });
});
