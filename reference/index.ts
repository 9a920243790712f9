// Starts the embedded reference implementation: the API origin, the authorization server origin
// and the control origin, each on its own loopback port, over one in-memory world.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppCredentials, Fixtures } from '../core/model.ts';
import { createApiServer } from './api/server.ts';
import type { Deps, Faults } from './api/call.ts';
import { createAuthHandler } from './auth-server.ts';
import { createClock, type Clock } from './clock.ts';
import { createControlServer } from './control.ts';
import { createCursorCodec } from './cursors.ts';
import { activeDefects } from './defects.ts';
import { buildWorld } from './fixtures.ts';
import { MemoryStore, type Store } from './store.ts';
import { AUDIENCE, createTokenService } from './tokens.ts';

export { DEFECTS, type Defect } from './defects.ts';
export { BLIND_DEFECTS, type BlindDefect } from './blind-defects.ts';

export interface ReferenceOptions {
  /** Ids from reference/defects.ts or reference/blind-defects.ts; unknown ids are refused. */
  defects?: string[];
  /** Default 127.0.0.1. */
  host?: string;
  /** 0 = ephemeral (default). */
  port?: number;
  authPort?: number;
  controlPort?: number;
  /** Initial clock source (milliseconds since the epoch); the control origin can advance it. */
  now?: () => number;
  /** Requests per second the API answers before 429 with Retry-After (a sandbox's pace). */
  rateLimit?: number;
  /** Delay before every answer of the API and the authorization server (a distant host). */
  latencyMs?: number;
}

/** Fixture ids beyond the CONFORMANCE_* set, for the reference's own tests. */
export interface ReferenceExtras {
  otherBusinessBulkId: string;
  otherBusinessWebhookEndpointId: string;
  otherBusinessTemplateId: string;
  otherBusinessSenderId: string;
  /** Active webhook endpoints of the granted business (the fixture hands out the first). */
  webhookEndpointIds: string[];
}

export interface RunningReference {
  baseUrl: string;
  /** `${authOrigin}/oauth2/token`, its own origin. */
  tokenUrl: string;
  /** Control origin (own port). */
  controlUrl: string;
  audience: 'service-external-api';
  apps: { primary: AppCredentials; limited: AppCredentials; other: AppCredentials };
  fixtures: Fixtures;
  /** Active defect ids. */
  defects: string[];
  extras: ReferenceExtras;
  /** The clock, for in-process callers (tests may also use the control origin). */
  clock: Clock;
  store: Store;
  close(): Promise<void>;
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A handler that starts `ms` later: the answer of a host that far away. */
function delayed(handler: Handler, ms: number | undefined): Handler {
  return ms ? (req, res) => void setTimeout(() => handler(req, res), ms) : handler;
}

/** Delays every request listener of a server already built. */
function delayRequests(server: Server, ms: number): void {
  const listeners = server.listeners('request') as Handler[];
  server.removeAllListeners('request');
  for (const listener of listeners) server.on('request', delayed(listener, ms));
}

function origin(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export async function startReference(options: ReferenceOptions = {}): Promise<RunningReference> {
  const host = options.host ?? '127.0.0.1';
  const defects = activeDefects(options.defects ?? []);
  const clock = createClock(options.now);
  const cursors = createCursorCodec();
  const world = buildWorld(clock.now(), cursors);
  const store = new MemoryStore(world.seed);
  const faults: Faults = { walletUnavailable: false, rateLimitPerMinute: null, serviceUnavailable: false, internalError: false, countsUnavailable: false };

  // The auth origin must be known before tokens name it as their issuer.
  const authServer = createServer();
  const authPort = await listen(authServer, host, options.authPort ?? 0);
  const authOrigin = origin(host, authPort);
  const tokens = createTokenService(authOrigin, defects);
  authServer.on('request', delayed(createAuthHandler(store, tokens, defects), options.latencyMs));
  // A fixture any host can supply (a token kept past its expiry): `serve` prints it too.
  const expiredToken = (await tokens.issue(world.apps.primary.clientId, 'expired')).token;

  const deps: Deps = { store, clock, tokens, cursors, defects, faults, counters: { walletReads: 0, lastWalletBalance: new Map(), rate: new Map(), pace: [] }, ratePerSecond: options.rateLimit ?? null };
  const apiServer = createApiServer(deps);
  if (options.latencyMs) delayRequests(apiServer, options.latencyMs);
  const controlServer = createControlServer({
    store,
    clock,
    tokens,
    cursors,
    defects,
    faults,
    apps: { primary: world.apps.primary.clientId, limited: world.apps.limited.clientId },
  });
  const servers = [authServer];
  try {
    const apiPort = await listen(apiServer, host, options.port ?? 0);
    servers.push(apiServer);
    const controlPort = await listen(controlServer, host, options.controlPort ?? 0);
    servers.push(controlServer);

    const baseUrl = origin(host, apiPort);
    const tokenUrl = `${authOrigin}/oauth2/token`;
    const controlUrl = origin(host, controlPort);
    const f = world.fixtures;
    const apps = world.apps;
    return {
      baseUrl,
      tokenUrl,
      controlUrl,
      audience: AUDIENCE,
      apps,
      fixtures: { ...f, templatePlaceholders: [...f.templatePlaceholders], recipients: [...f.recipients], webhookEndpointIds: [...f.webhookEndpointIds], expiredToken },
      defects: [...defects],
      extras: {
        otherBusinessBulkId: world.otherBusinessBulkId,
        otherBusinessWebhookEndpointId: world.otherBusinessWebhookEndpointId,
        otherBusinessTemplateId: world.otherBusinessTemplateId,
        otherBusinessSenderId: world.otherBusinessSenderId,
        webhookEndpointIds: [...world.webhookEndpointIds],
      },
      clock,
      store,
      close: async () => {
        await Promise.all(servers.map(closeServer));
      },
    };
  } catch (error) {
    await Promise.all(servers.map(closeServer));
    throw error;
  }
}
