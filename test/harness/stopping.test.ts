// Long-running commands stop cleanly however a script starts them. `npm exec` (npx) passes no
// signal on to the command it runs, so each command is started here as a user's script would
// (`npm exec --no-install -- conformance ...`), and stopped either by SIGTERM to the npm process
// (the orphan guard must notice its starter gone) or by SIGTERM to the pid in --pid-file. Within a
// few seconds: the port is free, the pid file gone, no process of the command's group left, and
// for `proxy` the reports written.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startReference } from '../../reference/index.ts';
import { ROOT } from './fixtures/spawn.ts';
import { packageEnv } from '../package/commands.ts';

interface Started {
  npm: ChildProcess;
  output: () => string;
}

const started: Started[] = [];
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  // Whatever a failed test left: the whole group, by its id (the npm process leads it).
  for (const s of started.splice(0)) signalGroup(s.npm.pid!, 'SIGKILL');
  while (closers.length > 0) await closers.pop()!();
});

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // Already gone.
  }
}

/** `npm exec --no-install -- conformance ARGS` in its own process group, as a script's `cmd &` would start it. */
function throughNpm(args: string[]): Started {
  const npm = spawn('npm', ['exec', '--no-install', '--', 'conformance', ...args], { cwd: ROOT, env: packageEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let text = '';
  npm.stdout!.on('data', (c) => (text += c));
  npm.stderr!.on('data', (c) => (text += c));
  const s = { npm, output: () => text };
  started.push(s);
  return s;
}

/** The live (not zombie) processes of a process group, from /proc. */
function liveMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z') members.push(Number(entry));
    } catch {
      // Ended while read.
    }
  }
  return members;
}

async function portIsFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function waitFor(what: () => boolean | Promise<boolean>, ms: number, label: string, s: Started): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await what()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${label} within ${ms} ms\n${s.output()}`);
}

const tempDir = () => mkdtempSync(join(tmpdir(), 'conformance-stop-'));

/** After the stop: within a few seconds, nothing of the command is left. */
async function expectStopped(s: Started, port: number, pidFile?: string): Promise<void> {
  const pgid = s.npm.pid!;
  await waitFor(() => liveMembers(pgid).length === 0, 5000, `processes of the group left: ${liveMembers(pgid).join(', ')}`, s);
  await waitFor(() => portIsFree(port), 5000, `port ${port} still taken`, s);
  if (pidFile !== undefined) expect(existsSync(pidFile)).toBe(false);
}

// npm may pass a SIGTERM on to its child or die first (timing), so only a SIGKILL, which it cannot
// pass on, always leaves the command to its orphan guard, whose line the test then asks for.
const STOPS = ['npm', 'npm-killed', 'pid-file'] as const;
const stopBy = (how: (typeof STOPS)[number], s: Started, pidFile: string) =>
  process.kill(how === 'pid-file' ? Number(readFileSync(pidFile, 'utf8')) : s.npm.pid!, how === 'npm-killed' ? 'SIGKILL' : 'SIGTERM');
const STOP_TITLES = { npm: 'SIGTERM to the npm process', 'npm-killed': 'SIGKILL to the npm process (the orphan guard stops it)', 'pid-file': 'SIGTERM to the pid in --pid-file' };

describe.runIf(process.platform === 'linux')('long-running commands started through npm exec stop cleanly', () => {
  for (const how of STOPS) {
    it(`serve: ${STOP_TITLES[how]} frees the port and leaves no process`, async () => {
      const dir = tempDir();
      const pidFile = join(dir, 'serve.pid');
      const s = throughNpm(['serve', '--env-out', join(dir, 'serve.env'), '--pid-file', pidFile]);
      await waitFor(() => existsSync(pidFile), 30_000, 'no pid file', s);
      const port = Number(new URL(/^CONFORMANCE_BASE_URL=(\S+)$/m.exec(readFileSync(join(dir, 'serve.env'), 'utf8'))![1]!).port);
      expect(Number(readFileSync(pidFile, 'utf8'))).toBeGreaterThan(1);
      expect(await portIsFree(port)).toBe(false);
      stopBy(how, s, pidFile);
      await expectStopped(s, port, pidFile);
      if (how === 'npm-killed') expect(s.output()).toMatch(/conformance serve: the process that started it \(pid \d+\) has gone; stopping as on SIGTERM/);
    });

    it(`proxy: SIGTERM to the ${how === 'npm' ? 'npm process' : 'pid in --pid-file'} writes the reports, frees the port and leaves no process`, async () => {
      const ref = await startReference({});
      closers.push(() => ref.close());
      const dir = tempDir();
      const pidFile = join(dir, 'proxy.pid');
      const s = throughNpm(['proxy', '--upstream', ref.baseUrl, '--report-dir', join(dir, 'reports'), '--pid-file', pidFile]);
      await waitFor(() => existsSync(pidFile), 30_000, 'no pid file', s);
      const url = /listening on (http:\S+),/.exec(s.output())![1]!;
      await (await fetch(`${url}/v1/businesses/${ref.fixtures.businessId}/wallet/balance`)).arrayBuffer();
      stopBy(how, s, pidFile);
      await expectStopped(s, Number(new URL(url).port), pidFile);
      for (const file of ['report.json', 'junit.xml']) expect(existsSync(join(dir, 'reports', file)), file).toBe(true);
      // The process is gone once its last line is written, but the pipe may hand the line on a little later (a loaded machine).
      await waitFor(() => s.output().includes('judged 1 exchange'), 5000, 'no closing line "judged 1 exchange"', s);
    });
  }

  it('run (embedded reference): SIGKILL to the npm process (the orphan guard stops it) frees the reference\'s port and leaves no process', async () => {
    const dir = tempDir();
    const s = throughNpm(['run', '--topic', 'webhooks', '--report-dir', join(dir, 'reports')]);
    await waitFor(() => /^target: http:\/\/127\.0\.0\.1:\d+ \(embedded/m.test(s.output()), 30_000, 'no target line', s);
    const port = Number(/^target: http:\/\/127\.0\.0\.1:(\d+)/m.exec(s.output())![1]);
    process.kill(s.npm.pid!, 'SIGKILL');
    await expectStopped(s, port);
    expect(s.output()).toMatch(/conformance run: the process that started it \(pid \d+\) has gone; stopping as on SIGTERM/);
  });
});
