// The control origin (loopback only, never part of the API): lets the checker's suites and the
// reference's own tests move the clock, switch faults, mint test tokens and inspect state.
// Contract in reference/README.md.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { DEFECTS } from './defects.ts';
import { BLIND_DEFECTS } from './blind-defects.ts';
import { uuidv7 } from './ids.ts';
import type { Deps } from './api/call.ts';
import type { TokenKind } from './tokens.ts';

/** What the API's handlers share (reference/api/call.ts), and the applications' client ids. */
export interface ControlDeps extends Pick<Deps, 'store' | 'clock' | 'tokens' | 'cursors' | 'defects' | 'faults'> {
  apps: { primary: string; limited: string };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
  res.end(text);
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (!text) return resolve({});
      try {
        resolve(JSON.parse(text));
      } catch {
        resolve(undefined);
      }
    });
  });
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function createControlServer(deps: ControlDeps): Server {
  return createServer((req, res) => {
    void respond(req, res).catch(() => send(res, 500, { error: 'control failure' }));
  });

  async function respond(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    const method = req.method ?? 'GET';
    const body = method === 'POST' ? await readJson(req) : (req.resume(), {});
    if (method === 'POST' && !isRecord(body)) return send(res, 400, { error: 'body must be a JSON object' });
    const input = body as Record<string, unknown>;
    const clockView = () => {
      const now = deps.clock.now();
      return { now, iso: new Date(now).toISOString() };
    };

    if (method === 'GET' && path === '/clock') return send(res, 200, clockView());
    if (method === 'POST' && path === '/clock/advance') {
      if (typeof input.ms !== 'number' || !Number.isFinite(input.ms) || input.ms < 0) return send(res, 400, { error: 'ms must be a non-negative number' });
      deps.clock.advance(input.ms);
      return send(res, 200, clockView());
    }
    if (method === 'GET' && path === '/faults') return send(res, 200, deps.faults);
    if (method === 'POST' && path === '/faults') {
      const f = deps.faults;
      for (const key of ['walletUnavailable', 'serviceUnavailable', 'internalError', 'countsUnavailable'] as const) {
        if (key in input) {
          if (typeof input[key] !== 'boolean') return send(res, 400, { error: `${key} must be a boolean` });
          f[key] = input[key];
        }
      }
      if ('rateLimitPerMinute' in input) {
        const v = input.rateLimitPerMinute;
        if (v !== null && (typeof v !== 'number' || !Number.isInteger(v) || v < 0)) return send(res, 400, { error: 'rateLimitPerMinute must be a non-negative integer or null' });
        f.rateLimitPerMinute = v;
      }
      return send(res, 200, f);
    }
    if (method === 'POST' && path === '/tokens') {
      const app = input.app === 'limited' ? deps.apps.limited : input.app === 'primary' || input.app === undefined ? deps.apps.primary : undefined;
      const kind = (input.kind ?? 'valid') as TokenKind;
      if (!app || !['valid', 'expired', 'wrong-audience'].includes(kind)) return send(res, 400, { error: "app must be 'primary' or 'limited'; kind 'valid', 'expired' or 'wrong-audience'" });
      const { token, expiresIn } = await deps.tokens.issue(app, kind);
      return send(res, 200, { access_token: token, token_type: 'Bearer', expires_in: expiresIn });
    }
    if (method === 'POST' && path === '/cursors') {
      // A cursor issued at a chosen moment (e.g. 25 hours ago) for a bulk's listing.
      const bulk = typeof input.bulkId === 'string' ? deps.store.bulk(input.bulkId) : undefined;
      if (!bulk) return send(res, 404, { error: 'unknown bulkId' });
      const ageMs = typeof input.ageMs === 'number' ? input.ageMs : 0;
      const cursor = deps.cursors.encode({
        business: bulk.businessId,
        bulk: bulk.id,
        filters: { status: typeof input.status === 'string' ? input.status : null, to: typeof input.to === 'string' ? input.to : null },
        next: typeof input.next === 'number' ? input.next : 0,
        issuedAt: deps.clock.now() - ageMs,
      });
      return send(res, 200, { cursor });
    }
    if (method === 'GET' && path === '/defects') return send(res, 200, { active: [...deps.defects], available: DEFECTS, blind: BLIND_DEFECTS });
    if (method === 'GET' && path === '/state/counts') return send(res, 200, deps.store.counts());
    let m = /^\/state\/bulk-messages\/([^/]+)$/.exec(path);
    if (method === 'GET' && m) {
      const bulk = deps.store.bulk(decodeURIComponent(m[1]!));
      if (!bulk) return send(res, 404, { error: 'unknown bulk' });
      return send(res, 200, { id: bulk.id, business_id: bulk.businessId, recipient_rows: bulk.rows.length, accepted_at: new Date(bulk.acceptedAt).toISOString() });
    }
    m = /^\/templates\/([^/]+)\/revise$/.exec(path);
    if (method === 'POST' && m) {
      // A new active revision of the template (same text and placeholders), so a check can tell the
      // revision pinned at acceptance (2.1 TemplateRevisionPin) from the one active now.
      const template = deps.store.template(decodeURIComponent(m[1]!));
      if (!template) return send(res, 404, { error: 'unknown template' });
      const previous = template.revisionId;
      template.revisionId = uuidv7(deps.clock.now());
      return send(res, 200, { template_id: template.id, previous_revision_id: previous, revision_id: template.revisionId });
    }
    m = /^\/state\/webhook-endpoints\/([^/]+)$/.exec(path);
    if (method === 'GET' && m) {
      const endpoint = deps.store.webhookEndpoint(decodeURIComponent(m[1]!));
      if (!endpoint) return send(res, 404, { error: 'unknown endpoint' });
      return send(res, 200, {
        id: endpoint.id,
        business_id: endpoint.businessId,
        active: endpoint.active,
        deactivated_at: endpoint.deactivatedAt === null ? null : new Date(endpoint.deactivatedAt).toISOString(),
      });
    }
    send(res, 404, { error: 'unknown control route' });
  }
}
