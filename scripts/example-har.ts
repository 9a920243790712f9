// Writes examples/session.har (the traffic tests' own client against the embedded reference, its
// credentials replaced by plainly fake ones) and examples/session.env (the fixtures `check` reads).
// `npx tsx scripts/example-har.ts`; test/traffic/example.test.ts holds the files to what they claim.
import { writeFileSync } from 'node:fs';
import { startReference } from '../reference/index.ts';
import { clientSession, envLines, withFakeCredentials } from '../test/traffic/client.ts';

const reference = await startReference();
try {
  const har = withFakeCredentials(await clientSession(reference, reference.baseUrl, { overLimit: false }), reference);
  writeFileSync(new URL('../examples/session.har', import.meta.url), `${JSON.stringify(har, null, 1)}\n`);
  writeFileSync(new URL('../examples/session.env', import.meta.url), `# Fixtures of examples/session.har for conformance check --env-file (identifiers only, no secret)\n${envLines(reference)}`);
} finally {
  await reference.close();
}
