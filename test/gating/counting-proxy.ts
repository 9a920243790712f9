// A counting proxy on 127.0.0.1:0 in front of one origin: it forwards every request unchanged and
// counts what reaches the host, so a test can compare a run's plan with what was really sent.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { forwardTo } from '../harness/fixtures/forward.ts';

export interface CountingProxy {
  origin: string;
  readonly count: number;
  close(): Promise<void>;
}

export async function startCountingProxy(upstream: string): Promise<CountingProxy> {
  const target = new URL(upstream);
  let count = 0;
  const server = createServer((req, res) => {
    count += 1;
    forwardTo(target, req.url ?? '/', req, res, { ...req.headers, host: target.host });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    get count() {
      return count;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
