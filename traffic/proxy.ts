// A forwarding proxy on 127.0.0.1 that passes a client's traffic to the upstream API unchanged
// (bodies streamed both ways, no redirect followed) and keeps a copy of each exchange for the
// judge. Findings are printed as they appear; the reports are written when the proxy stops.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { Agent, request as undiciRequest } from 'undici';
import { HarnessError } from '../harness/errors.ts';
import { redactText } from '../harness/redact.ts';
import type { TrafficEnv } from './env.ts';
import { judgeTraffic, type Judgement } from './judge.ts';
import { normaliseHeaders, type TrafficExchange } from './model.ts';

/** Bodies are copied for judging up to this size; beyond it the copy is marked cut (never the stream). */
const COPY_LIMIT = 1024 * 1024;
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host']);

export interface ProxyOptions {
  upstream: string;
  port?: number;
  env: TrafficEnv;
  /** Called with each new finding's line, as it appears. */
  onFinding?: (line: string) => void;
}

export interface RunningProxy {
  url: string;
  /** Exchanges recorded so far. */
  count(): number;
  /** Milliseconds since the last exchange ended (or since start). */
  idleMs(): number;
  stop(): Promise<Judgement | undefined>;
}

/** A copy of a stream's bytes up to COPY_LIMIT, marked as the run's log marks a cut body. */
class Copy {
  private chunks: Buffer[] = [];
  private size = 0;
  add(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size <= COPY_LIMIT) this.chunks.push(chunk);
  }
  text(): string | undefined {
    if (this.size === 0) return undefined;
    const text = Buffer.concat(this.chunks).toString('utf8');
    return this.size > COPY_LIMIT ? `${text}… [cut: ${this.size - COPY_LIMIT} more characters]` : text;
  }
}

function forwardHeaders(headers: IncomingMessage['headers']): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  return out;
}

export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  let upstream: URL;
  try {
    upstream = new URL(options.upstream);
    if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') throw new Error('scheme');
  } catch {
    throw new HarnessError('CONF_INVALID_VALUE', `--upstream must be an http(s) URL (got ${JSON.stringify(options.upstream)})`);
  }
  const prefix = upstream.pathname.replace(/\/$/, '');
  const agent = new Agent({ keepAliveTimeout: 10_000 });
  const exchanges: TrafficExchange[] = [];
  const printed = new Set<string>();
  let lastActivity = Date.now();
  let judgeTimer: NodeJS.Timeout | undefined;
  /** Live judging waits at least twice as long as it last took, so a long session never spends most of its time judging. */
  let judgeDelay = 200;

  // Judging the whole traffic again keeps cross-exchange rules exact; it is batched, not per request.
  const judgeLive = () => {
    judgeTimer = undefined;
    if (!options.onFinding || exchanges.length === 0) return;
    const started = performance.now();
    const judgement = judgeTraffic(exchanges, { env: options.env });
    judgeDelay = Math.max(200, 2 * (performance.now() - started));
    for (const f of judgement.findings) {
      const key = `${f.check}|${f.requirement}|${f.source}`;
      if (printed.has(key)) continue;
      printed.add(key);
      options.onFinding(redactText(`${f.status === 'fail' ? 'failed' : 'warned'} ${f.check}: ${f.requirement}: expected ${f.expected}; got ${f.actual} (${f.source})`, judgement.secrets));
    }
    for (const c of judgement.client) {
      const key = `${c.id}|${c.source}`;
      if (printed.has(key)) continue;
      printed.add(key);
      options.onFinding(redactText(`client side ${c.id} (${c.requirement}): ${c.text} (${c.source})`, judgement.secrets));
    }
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = Date.now();
    const target = new URL(`${prefix}${req.url ?? '/'}`, upstream.origin);
    const requestCopy = new Copy();
    // One reader of the request: each chunk is copied and passed on, pausing while the upstream is slow.
    const requestBody = new PassThrough();
    req.on('data', (chunk: Buffer) => {
      requestCopy.add(chunk);
      if (!requestBody.write(chunk)) req.pause();
    });
    requestBody.on('drain', () => req.resume());
    req.on('end', () => requestBody.end());
    req.on('error', (error) => requestBody.destroy(error));
    const hasBody = req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0' || req.headers['transfer-encoding'] !== undefined;
    let answer;
    try {
      answer = await undiciRequest(target, {
        method: req.method as 'GET',
        headers: forwardHeaders(req.headers),
        ...(hasBody ? { body: requestBody } : {}),
        dispatcher: agent,
      });
    } catch {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end('conformance proxy: the upstream did not answer\n');
      return;
    }
    const responseHeaders: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) responseHeaders[name] = value;
    res.writeHead(answer.statusCode, responseHeaders);
    const responseCopy = new Copy();
    for await (const chunk of answer.body) {
      responseCopy.add(chunk as Buffer);
      res.write(chunk);
    }
    res.end();
    const flat = (h: Record<string, string | string[] | undefined>) => normaliseHeaders(Object.entries(h).flatMap(([n, v]) => (v === undefined ? [] : Array.isArray(v) ? v.map((x) => [n, x] as [string, string]) : [[n, v] as [string, string]])));
    const sentBody = requestCopy.text();
    const responseBody = responseCopy.text();
    exchanges.push({
      index: exchanges.length,
      source: `proxy exchange ${exchanges.length + 1}`,
      startedAt: started,
      endedAt: Date.now(),
      request: { method: (req.method ?? 'GET').toUpperCase(), url: target.href, headers: flat(req.headers), ...(sentBody !== undefined ? { body: sentBody } : {}) },
      response: { status: answer.statusCode, headers: flat(answer.headers), ...(responseBody !== undefined ? { body: responseBody } : {}) },
    });
    lastActivity = Date.now();
    judgeTimer ??= setTimeout(judgeLive, judgeDelay);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(new HarnessError('PROXY_FAILED', `the proxy cannot listen on 127.0.0.1:${options.port ?? 0} (${error.code ?? 'unknown'})`)));
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    count: () => exchanges.length,
    idleMs: () => Date.now() - lastActivity,
    async stop() {
      if (judgeTimer) clearTimeout(judgeTimer);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await agent.close();
      judgeLive();
      return exchanges.length > 0 ? judgeTraffic(exchanges, { env: options.env }) : undefined;
    },
  };
}
