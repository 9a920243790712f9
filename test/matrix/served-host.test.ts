// startServedHost (scripts/served-host.ts), with a stand-in for `conformance serve` that does what
// the scenario needs: write its env file and wait, fail at once, never write, or ignore SIGTERM.
// Every failure is one line, and every path that throws after the start has stopped the child.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServedHost } from '../../scripts/served-host.ts';

/** A stand-in serve: `node stand-in.mjs serve --env-out FILE <behaviour>`. */
const STAND_IN = `
const [, , , , envOut, behaviour] = process.argv;
import { writeFileSync } from 'node:fs';
if (behaviour === 'fail') { process.stderr.write('conformance: port in use [CONF_SERVE]\\n'); process.exit(2); }
if (behaviour === 'stubborn') process.on('SIGTERM', () => {});
if (behaviour !== 'silent') writeFileSync(envOut, 'CONFORMANCE_BASE_URL=http://127.0.0.1:1\\nCONFORMANCE_CLIENT_SECRET=canary-served-host\\n');
setInterval(() => {}, 1000);
`;

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'served-host-'));
  const script = join(dir, 'stand-in.mjs');
  writeFileSync(script, STAND_IN);
  const options = { envOut: join(dir, 'host.env'), cwd: dir, env: { PATH: process.env.PATH ?? '' }, timeoutMs: 5_000 };
  return { script, options };
}

describe('startServedHost', { timeout: 30_000 }, () => {
  it('returns the env lines serve wrote and stops it', async () => {
    const { script, options } = setup();
    // A file left by an earlier host is removed first, never read.
    writeFileSync(options.envOut, 'CONFORMANCE_BASE_URL=http://127.0.0.1:9\n');
    const host = await startServedHost([process.execPath, script], ['wait'], options);
    expect(host.lines).toEqual(['CONFORMANCE_BASE_URL=http://127.0.0.1:1', 'CONFORMANCE_CLIENT_SECRET=canary-served-host']);
    await host.stop();
    await host.stop(); // a second stop of an exited host returns at once
  });

  it('says in one line that a command could not start', async () => {
    const { options } = setup();
    await expect(startServedHost([join(options.cwd, 'no-such-bin')], [], options)).rejects.toThrow(/^conformance serve could not start: spawn .*ENOENT$/);
  });

  it('says that serve exited before writing, with its last error line', async () => {
    const { script, options } = setup();
    await expect(startServedHost([process.execPath, script], ['fail'], options)).rejects.toThrow(
      'conformance serve exited (2) before writing its env file: conformance: port in use [CONF_SERVE]',
    );
  });

  it('stops a serve that writes nothing within the timeout, and says so', async () => {
    const { script, options } = setup();
    await expect(startServedHost([process.execPath, script], ['silent'], { ...options, timeoutMs: 500 })).rejects.toThrow('conformance serve wrote no env file within 1 s');
  });

  it('kills a serve that ignores SIGTERM after the grace period', async () => {
    const { script, options } = setup();
    const host = await startServedHost([process.execPath, script], ['stubborn'], { ...options, graceMs: 300 });
    const started = Date.now();
    await host.stop();
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });
});
