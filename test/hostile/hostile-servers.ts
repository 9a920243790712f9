// Test servers on 127.0.0.1:0 that misbehave at the transport and format level, a well-behaved
// token endpoint beside them (so the API host's misbehaviour is what is tested), and a stranger
// origin that records whatever reaches it (the target of a cross-origin redirect).
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const CLIENT_ID = 'hostile-client';
/** Canaries: neither may appear in any report or output, nor reach the stranger origin. */
export const CLIENT_SECRET = 'HOSTILE-SECRET-51d0c2aa';
export const ACCESS_TOKEN = 'HOSTILE-TOKEN-0f9e8d7c6b5a4321';
export const BUSINESS_ID = '01890a5d-ac96-774b-bcce-b302099a8057';
export const MESSAGE_ID = '01890a5d-ac96-7f4b-8cce-b302099a8058';

export type ApiMisbehaviour =
  | 'reset'
  | 'hang'
  | 'huge-body'
  | 'invalid-json'
  | 'html-error'
  | 'wrong-content-type'
  | 'redirect'
  | 'drip';

export type TokenMisbehaviour = 'none' | 'reset' | 'html-error' | 'hang';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface Running {
  origin: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** 20 MB: ten times the harness's response cap, to prove the cap holds memory down. */
export const HUGE_BODY_BYTES = 20 * 1024 * 1024;
/** One byte per tick: a short body takes seconds, a long one never ends before the timeout. */
const DRIP_INTERVAL_MS = 40;

async function listen(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<Running> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function problem(res: ServerResponse, status: number, code: string): void {
  const body = JSON.stringify({ type: `https://problems.example/${code}`, title: code, status, detail: code, code, request_id: 'hostile-1' });
  res.writeHead(status, { 'content-type': 'application/problem+json', 'x-request-id': 'hostile-1' });
  res.end(body);
}

/** A body that looks like a wallet balance, so a lenient parser would get far with it. */
const BALANCE = JSON.stringify({
  business_id: BUSINESS_ID,
  business_name: 'Hostile Ltd',
  currency: 'EUR',
  current_balance: '10.00',
  available_balance: '10.00',
  reserved_balance: '0.00',
  as_of: '2026-01-01T00:00:00Z',
});

/** Writes `bytes` bytes of a JSON array, respecting backpressure, until done or the client leaves. */
function writeHuge(res: ServerResponse, bytes: number): void {
  res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'hostile-1', 'content-length': String(bytes) });
  const chunk = Buffer.alloc(64 * 1024, 0x20); // spaces: valid JSON whitespace
  let left = bytes;
  const pump = () => {
    while (left > 0 && !res.destroyed) {
      const size = Math.min(left, chunk.length);
      left -= size;
      if (!res.write(size === chunk.length ? chunk : chunk.subarray(0, size))) {
        res.once('drain', pump);
        return;
      }
    }
    if (left === 0 && !res.destroyed) res.end();
  };
  pump();
}

function drip(res: ServerResponse, text: string): void {
  res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'hostile-1' });
  let i = 0;
  const timer = setInterval(() => {
    if (res.destroyed || i >= text.length) {
      clearInterval(timer);
      if (!res.destroyed) res.end();
      return;
    }
    res.write(text[i++]!);
  }, DRIP_INTERVAL_MS);
  res.on('close', () => clearInterval(timer));
}

/**
 * The API host. `GET /v1/` (the runner's reachability probe) is answered normally, so the host
 * counts as reachable; every other request gets the misbehaviour.
 */
export function startHostileApi(mode: ApiMisbehaviour, strangerOrigin = ''): Promise<Running> {
  return listen((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/v1/' || path === '/v1') return problem(res, 404, 'resource_not_found');
    switch (mode) {
      case 'reset':
        req.socket.resetAndDestroy();
        return;
      case 'hang':
        return; // never answers; the server's close ends the socket
      case 'huge-body':
        return writeHuge(res, HUGE_BODY_BYTES);
      case 'invalid-json':
        res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'hostile-1' });
        res.end(`${BALANCE.slice(0, 40)},,}{not json`);
        return;
      case 'html-error':
        res.writeHead(500, { 'content-type': 'text/html; charset=utf-8' });
        res.end('<!DOCTYPE html><html><head><title>500 Internal Server Error</title></head><body><h1>Internal Server Error</h1><p>nginx</p></body></html>');
        return;
      case 'wrong-content-type':
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'x-request-id': 'hostile-1' });
        res.end(BALANCE);
        return;
      case 'redirect':
        res.writeHead(307, { location: `${strangerOrigin}${req.url ?? '/'}`, 'x-request-id': 'hostile-1' });
        res.end();
        return;
      case 'drip':
        // Long enough that the whole body never arrives within the run's timeout.
        return drip(res, `${BALANCE}${' '.repeat(4096)}`);
    }
  });
}

function basicOk(header: string | undefined): boolean {
  if (!header?.startsWith('Basic ')) return false;
  const [id, secret] = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':');
  return decodeURIComponent(id ?? '') === CLIENT_ID && decodeURIComponent(secret ?? '') === CLIENT_SECRET;
}

/** The token endpoint (`/oauth2/token`), well-behaved unless told otherwise. */
export function startTokenEndpoint(mode: TokenMisbehaviour = 'none'): Promise<Running> {
  return listen((req, res) => {
    if (mode === 'reset') return req.socket.resetAndDestroy();
    if (mode === 'hang') return;
    if (mode === 'html-error') {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
      return;
    }
    res.writeHead(basicOk(req.headers.authorization) ? 200 : 401, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(basicOk(req.headers.authorization) ? JSON.stringify({ access_token: ACCESS_TOKEN, token_type: 'Bearer', expires_in: 3600 }) : '{"error":"invalid_client"}');
  });
}

/** Another origin: answers 200 to anything and records it. */
export function startStranger(): Promise<Running> {
  return listen((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(BALANCE);
  });
}

/** The environment that points a run at the hostile host and its token endpoint. */
export function hostileEnv(api: Running, token: Running): Record<string, string> {
  return {
    CONFORMANCE_BASE_URL: api.origin,
    CONFORMANCE_TOKEN_URL: `${token.origin}/oauth2/token`,
    CONFORMANCE_CLIENT_ID: CLIENT_ID,
    CONFORMANCE_CLIENT_SECRET: CLIENT_SECRET,
    CONFORMANCE_BUSINESS_ID: BUSINESS_ID,
    CONFORMANCE_MESSAGE_ID: MESSAGE_ID,
    CONFORMANCE_RECIPIENTS: '+4915112345678',
    CONFORMANCE_TIMEOUT_MS: '800',
    CONFORMANCE_SETTLE_TIMEOUT_MS: '1000',
    CONFORMANCE_RUNS: '2',
    CONFORMANCE_SEED: '7',
  };
}
