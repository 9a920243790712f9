// The fixtures `check` and `proxy` read from an env file (--env-file): the same CONFORMANCE_* names
// as a run, of which only the identifiers, listing parameter names and secrets matter here.
import { readFileSync } from 'node:fs';
import { parse } from 'dotenv';
import type { Fixtures, ListingParamNames } from '../core/model.ts';
import { HarnessError } from '../harness/errors.ts';

export interface TrafficEnv {
  fixtures: Fixtures;
  params: ListingParamNames;
  /** Values that must never be printed (client secrets, the expired token). */
  secrets: string[];
  audience: string;
  limitedClientId?: string;
}

const FIXTURES: Array<[keyof Fixtures, string]> = [
  ['businessId', 'CONFORMANCE_BUSINESS_ID'],
  ['otherBusinessId', 'CONFORMANCE_OTHER_BUSINESS_ID'],
  ['senderId', 'CONFORMANCE_SENDER_ID'],
  ['unauthorizedSenderId', 'CONFORMANCE_UNAUTHORIZED_SENDER_ID'],
  ['templateId', 'CONFORMANCE_TEMPLATE_ID'],
  ['inactiveTemplateId', 'CONFORMANCE_INACTIVE_TEMPLATE_ID'],
  ['messageId', 'CONFORMANCE_MESSAGE_ID'],
  ['foreignMessageId', 'CONFORMANCE_FOREIGN_MESSAGE_ID'],
  ['foreignBulkId', 'CONFORMANCE_FOREIGN_BULK_ID'],
  ['foreignWebhookEndpointId', 'CONFORMANCE_FOREIGN_WEBHOOK_ENDPOINT_ID'],
  ['webhookEndpointId', 'CONFORMANCE_WEBHOOK_ENDPOINT_ID'],
  ['expiredToken', 'CONFORMANCE_EXPIRED_TOKEN'],
];

const SECRET_NAMES = ['CONFORMANCE_CLIENT_SECRET', 'CONFORMANCE_LIMITED_CLIENT_SECRET', 'CONFORMANCE_EXPIRED_TOKEN'];

export function readTrafficEnv(path: string | undefined): TrafficEnv {
  let values: Record<string, string> = {};
  if (path !== undefined) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new HarnessError('CONF_ENV_FILE', `--env-file ${path} cannot be read (${(error as { code?: string }).code ?? 'unknown'})`);
    }
    values = parse(text);
  }
  const fixtures: Fixtures = {};
  for (const [key, name] of FIXTURES) {
    const value = values[name]?.trim();
    if (value) (fixtures as Record<string, string>)[key] = value;
  }
  const param = (name: string, fallback: string) => values[`CONFORMANCE_PARAM_${name}`]?.trim() || fallback;
  return {
    fixtures,
    params: { limit: param('LIMIT', 'limit'), cursor: param('CURSOR', 'cursor'), status: param('STATUS', 'status'), to: param('TO', 'to') },
    secrets: SECRET_NAMES.map((n) => values[n]).filter((v): v is string => !!v),
    audience: values.CONFORMANCE_AUDIENCE?.trim() || 'service-external-api',
    ...(values.CONFORMANCE_LIMITED_CLIENT_ID?.trim() ? { limitedClientId: values.CONFORMANCE_LIMITED_CLIENT_ID.trim() } : {}),
  };
}
