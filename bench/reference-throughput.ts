// Throughput of the embedded reference for an authenticated wallet GET on loopback.
// Run: npx tsx bench/reference-throughput.ts [seconds] [connections]
import { createRequire } from 'node:module';
import { startReference } from '../reference/index.ts';

// autocannon ships no types; the little used here is typed locally.
interface AutocannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  pipelining: number;
  duration: number;
  headers: Record<string, string>;
}) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const seconds = Number(process.argv[2] ?? 5);
const connections = Number(process.argv[3] ?? 50);

const ref = await startReference();
try {
  const { clientId, clientSecret } = ref.apps.primary;
  const tokenReply = await fetch(ref.tokenUrl, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  const { access_token: token } = (await tokenReply.json()) as { access_token: string };
  const url = `${ref.baseUrl}/v1/businesses/${ref.fixtures.businessId}/wallet/balance`;
  const result = await autocannon({ url, connections, pipelining: 1, duration: seconds, headers: { authorization: `Bearer ${token}` } });
  const non2xx = result.non2xx + result.errors + result.timeouts;
  console.log(`reference wallet GET: ${Math.round(result.requests.average)} requests/s average over ${seconds} s, ${connections} connections`);
  console.log(`latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms; non-2xx or errors: ${non2xx}`);
  console.log(Math.round(result.requests.average) >= 5000 ? 'target 5000 requests/s: met' : 'target 5000 requests/s: NOT met');
} finally {
  await ref.close();
}
