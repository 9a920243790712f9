// The command line as a new user meets it: --help and --version everywhere, configuration that
// cannot be misread, a wrong base or token URL told in one line, merges that need every shard.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS, OPTION_MEANINGS, main } from '../../cli/main.ts';
import { closest } from '../../harness/closest.ts';
import { loadConfig } from '../../harness/config.ts';
import { HarnessError } from '../../harness/errors.ts';
import { checkSelected } from '../../core/model.ts';
import { checkShardsComplete } from '../../harness/runner.ts';
import { lookOf } from '../../harness/terminal.ts';
import { CANARY_SECRET, fakeEnv, startFakeTarget } from './fixtures/fake-target.ts';
import { ROOT, cli, fixtureRun, hasStackTrace } from './fixtures/spawn.ts';

/** A fresh folder; the run's temp root (test/temp-root.ts) removes it with everything else. */
const tempDir = (label: string) => mkdtempSync(join(tmpdir(), `conformance-${label}-`));

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** One line on stderr of the form the CLI promises for exit 2. */
function expectOneLineRefusal(result: { code: number | null; stdout: string; stderr: string }, code: string): void {
  expect(result.code, result.stdout + result.stderr).toBe(2);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toContain(`[${code}]`);
  expect(hasStackTrace(result.stdout + result.stderr)).toBe(false);
}

describe('--help and --version', { timeout: 120_000 }, () => {
  it('each command answers --help with its own usage and exit 0 (child process)', async () => {
    for (const command of COMMANDS.values()) {
      const result = await cli([command.name, '--help'], {}, tmpdir());
      expect(result.code, command.name).toBe(0);
      expect(result.stdout.split('\n')[0]).toBe(`usage: ${command.usage.split('\n')[0]}`);
      for (const option of Object.keys(command.options)) expect(result.stdout, `${command.name} --${option}`).toContain(`--${option} `);
      expect(result.stderr).toBe('');
    }
  });

  it('-h, help COMMAND and --help after other flags print the same usage', async () => {
    for (const args of [['run', '-h'], ['help', 'run'], ['run', '--topic', 'wallet', '--help'], ['run', '--nope', '--help']]) {
      const lines: string[] = [];
      const code = await main(args, { out: (l) => lines.push(l), err: (l) => lines.push(`ERR ${l}`) });
      expect(code, args.join(' ')).toBe(0);
      expect(lines[0]).toMatch(/^usage: conformance run /);
    }
  });

  it('--version and -v print the package version, exit 0', async () => {
    for (const flag of ['--version', '-v']) {
      const result = await cli([flag], {}, tmpdir());
      expect(result.code).toBe(0);
      expect(result.stdout.trim()).toBe(`external-integration-api-conformance ${VERSION}`);
    }
  });

  it('every option of every command has a meaning in its --help', () => {
    for (const command of COMMANDS.values()) {
      for (const option of Object.keys(command.options)) expect(OPTION_MEANINGS[option], `--${option}`).toBeTruthy();
    }
  });

  it('a mistyped command or help topic suggests the nearest one', async () => {
    const lines: string[] = [];
    expect(await main(['rn'], { out: (l) => lines.push(l), err: (l) => lines.push(l) })).toBe(2);
    expect(await main(['help', 'serv'], { out: (l) => lines.push(l), err: (l) => lines.push(l) })).toBe(2);
    expect(lines[0]).toContain('did you mean run?');
    expect(lines[1]).toContain('did you mean serve?');
  });
});

describe('configuration that cannot be misread', { timeout: 120_000 }, () => {
  it('CONFORMANCE_PROFIL=safe in the env file: exit 2 with the suggestion, before any request', async () => {
    const fake = await startFakeTarget();
    try {
      const dir = tempDir('typo');
      const env = fakeEnv(fake);
      writeFileSync(join(dir, 'typo.env'), `${Object.entries(env).map(([k, v]) => `${k}=${v}`).join('\n')}\nCONFORMANCE_PROFIL=safe\n`);
      const result = await cli(['run', '--env-file', join(dir, 'typo.env'), '--report-dir', join(dir, 'reports')], {}, dir);
      expectOneLineRefusal(result, 'CONF_UNKNOWN_VARIABLE');
      expect(result.stderr).toContain('CONFORMANCE_PROFIL (in --env-file');
      const json = await cli(['run', '--json', '--env-file', join(dir, 'typo.env')], {}, dir);
      expect(json.code).toBe(2);
      expect(JSON.parse(json.stdout)).toMatchObject({ verdict: 'error', exitCode: 2, harnessErrors: [{ code: 'CONF_UNKNOWN_VARIABLE' }] });
      expect(result.stderr).toContain('did you mean CONFORMANCE_PROFILE?');
      expect(result.stdout + result.stderr).not.toContain(CANARY_SECRET);
      expect(fake.calls).toHaveLength(0);
    } finally {
      await fake.close();
    }
  });

  it('an unknown CONFORMANCE_* name in the environment is refused the same way (any letter case)', () => {
    for (const name of ['CONFORMANCE_TOPIC', 'conformance_profile', 'CONFORMANCE_CLIENT_SECRETS']) {
      let error: unknown;
      try {
        loadConfig({}, { [name]: CANARY_SECRET }, tempDir('env'));
      } catch (e) {
        error = e;
      }
      expect(error, name).toBeInstanceOf(HarnessError);
      expect((error as HarnessError).code).toBe('CONF_UNKNOWN_VARIABLE');
      expect((error as HarnessError).message).toContain(`${name} (in the environment)`);
      expect((error as HarnessError).message).toMatch(/did you mean CONFORMANCE_(TOPICS|PROFILE|CLIENT_SECRET)\?/);
      expect((error as HarnessError).message).not.toContain(CANARY_SECRET);
    }
  });

  it('a line of the env file that is not a variable is exit 2 with its line number, never its text', () => {
    const dir = tempDir('lines');
    writeFileSync(join(dir, '.env'), `# comment\n\nCONFORMANCE_RUNS=3\nCONFORMANCE_CLIENT_SECRET ${CANARY_SECRET}\n`);
    let error: unknown;
    try {
      loadConfig({}, {}, dir);
    } catch (e) {
      error = e;
    }
    expect((error as HarnessError).code).toBe('CONF_ENV_FILE');
    expect((error as HarnessError).message).toContain('.env line 4 is not a variable');
    expect((error as HarnessError).message).not.toContain(CANARY_SECRET);
  });

  it('comments, blank lines, export and quoted values over several lines are variables', () => {
    const dir = tempDir('quoted');
    writeFileSync(join(dir, '.env'), '# a\nexport CONFORMANCE_RUNS=4\nCONFORMANCE_PARAM_LIMIT="page\nsize"\n  # indented comment\n');
    expect(loadConfig({}, {}, dir).settings.runs).toBe(4);
  });

  it('closest() finds typos and leaves unrelated names alone', () => {
    expect(closest('CONFORMANCE_PROFIL', ['CONFORMANCE_PROFILE', 'CONFORMANCE_RUNS'])).toBe('CONFORMANCE_PROFILE');
    expect(closest('CONFORMANCE_WHATEVER_ELSE', ['CONFORMANCE_PROFILE', 'CONFORMANCE_RUNS'])).toBeUndefined();
  });

  it('baseline reads CONFORMANCE_REPORT_DIR from .env, like every setting', async () => {
    const dir = tempDir('reportdir');
    writeFileSync(join(dir, '.env'), 'CONFORMANCE_REPORT_DIR=elsewhere\n');
    const result = await cli(['baseline'], {}, dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(join(dir, 'elsewhere', 'report.json'));
  });
});

/** A web server that is not the API: every path answers like `answer` does. */
async function startWebServer(answer: (res: import('node:http').ServerResponse) => void) {
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    req.resume();
    answer(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    get requests() {
      return requests;
    },
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

const htmlNotFound = (res: import('node:http').ServerResponse) => {
  res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
  res.end('<!DOCTYPE html><html><body><h1>404 Not Found</h1></body></html>');
};

describe('pre-flight of the target', { timeout: 120_000 }, () => {
  it('a base URL whose host answers an HTML 404 page: exit 2, one line naming CONFORMANCE_BASE_URL, after two requests', async () => {
    const web = await startWebServer(htmlNotFound);
    const fake = await startFakeTarget();
    try {
      const dir = tempDir('html404');
      const result = await cli(['run', '--report-dir', join(dir, 'reports')], { ...fakeEnv({ baseUrl: `${web.origin}/api`, tokenUrl: fake.tokenUrl }) }, dir);
      expectOneLineRefusal(result, 'TARGET_MISCONFIGURED');
      expect(result.stderr).toContain(`CONFORMANCE_BASE_URL ${web.origin}/api is probably wrong`);
      expect(result.stderr).toContain('HTTP 404 text/html');
      // Two requests prove it stopped at the pre-flight; the wall bound only guards against a hang
      // and includes a cold process start on a loaded two-core runner (CI runs test files in parallel).
      expect(web.requests).toBeLessThanOrEqual(2);
      expect(result.ms).toBeLessThan(10_000);
      expect(result.stdout + result.stderr).not.toContain(CANARY_SECRET);
      const report = JSON.parse(readFileSync(join(dir, 'reports', 'report.json'), 'utf8')) as { verdict: string; harnessErrors: Array<{ code: string }> };
      expect(report.verdict).toBe('error');
      expect(report.harnessErrors.map((e) => e.code)).toEqual(['TARGET_MISCONFIGURED']);
    } finally {
      await web.close();
      await fake.close();
    }
  });

  it('a base URL that redirects everything (a login page): exit 2 naming the redirect', async () => {
    const web = await startWebServer((res) => {
      res.writeHead(302, { location: 'https://login.example.test/' });
      res.end();
    });
    const fake = await startFakeTarget();
    try {
      const result = await cli(['run', '--report-dir', join(tempDir('redirect'), 'r')], fakeEnv({ baseUrl: web.origin, tokenUrl: fake.tokenUrl }));
      expectOneLineRefusal(result, 'TARGET_MISCONFIGURED');
      expect(result.stderr).toContain('a redirect (HTTP 302 to https://login.example.test/)');
      expect(fake.tokenRequests).toBe(0);
    } finally {
      await web.close();
      await fake.close();
    }
  });

  it('a token URL that is a web page, not a token endpoint: exit 2 naming CONFORMANCE_TOKEN_URL', async () => {
    const web = await startWebServer(htmlNotFound);
    const fake = await startFakeTarget();
    try {
      const result = await cli(['run', '--report-dir', join(tempDir('token404'), 'r')], fakeEnv({ baseUrl: fake.baseUrl, tokenUrl: `${web.origin}/token` }));
      expectOneLineRefusal(result, 'TARGET_MISCONFIGURED');
      expect(result.stderr).toContain(`CONFORMANCE_TOKEN_URL ${web.origin}/token is probably not a token endpoint: it answered HTTP 404 text/html`);
      expect(result.stdout + result.stderr).not.toContain(CANARY_SECRET);
    } finally {
      await web.close();
      await fake.close();
    }
  });
});

describe('--merge-reports needs every shard', { timeout: 120_000 }, () => {
  it('names the missing shard (unit)', () => {
    expect(() => checkShardsComplete([{ dir: 'a', shard: '1/3' }, { dir: 'c', shard: '3/3' }])).toThrow(/shard 2\/3 missing/);
    expect(() => checkShardsComplete([{ dir: 'a', shard: '1/2' }, { dir: 'b', shard: '2/3' }])).toThrow(/other/);
    expect(() => checkShardsComplete([{ dir: 'a' }])).toThrow(/no shard report/);
    expect(() => checkShardsComplete([{ dir: 'a', shard: '2/2' }, { dir: 'b', shard: '1/2' }])).not.toThrow();
  });

  it('a merge of shard 1/2 alone exits 2 naming 2/2', async () => {
    const dir = tempDir('merge');
    const one = await fixtureRun(['run', '--shard', '1/2', '--seed', '5', '--report-dir', join(dir, 's1')]);
    expect([0, 1]).toContain(one.code);
    const merged = await fixtureRun(['run', '--report-dir', join(dir, 'merged'), '--merge-reports', join(dir, 's1')]);
    expectOneLineRefusal(merged, 'CONF_INVALID_VALUE');
    expect(merged.stderr).toContain('shard 2/2 missing');
  });
});

describe('output for people and scripts', { timeout: 120_000 }, () => {
  it('colour on a terminal only; NO_COLOR and FORCE_COLOR decide as in Node; no in-place lines in CI', () => {
    expect(lookOf({ isTTY: true }, {})).toEqual({ colour: true, inPlace: true });
    expect(lookOf({ isTTY: true }, { NO_COLOR: '1' }).colour).toBe(false);
    expect(lookOf({ isTTY: false }, {}).colour).toBe(false);
    expect(lookOf({ isTTY: false }, { FORCE_COLOR: '1' }).colour).toBe(true);
    expect(lookOf({ isTTY: true }, { FORCE_COLOR: '0' }).colour).toBe(false);
    expect(lookOf({ isTTY: true }, { CI: 'true' }).inPlace).toBe(false);
    expect(lookOf({ isTTY: true }, { GITHUB_ACTIONS: 'true' }).inPlace).toBe(false);
  });

  it('--json prints one JSON object and nothing else; FORCE_COLOR colours the plain output, NO_COLOR not', async () => {
    const dir = tempDir('json');
    const json = await cli(['run', '--topic', 'wallet', '--runs', '2', '--json', '--report-dir', join(dir, 'a')], {}, dir);
    expect(json.code, json.stderr).toBe(0);
    const summary = JSON.parse(json.stdout) as { verdict: string; exitCode: number; summary: { passed: number }; reports: string[] };
    expect(summary.verdict).toBe('pass');
    expect(summary.exitCode).toBe(0);
    expect(summary.summary.passed).toBeGreaterThan(0);
    expect(summary.reports).toContain(join(dir, 'a', 'report.json'));

    const coloured = await cli(['run', '--topic', 'wallet', '--runs', '2', '--report-dir', join(dir, 'b')], { FORCE_COLOR: '1' }, dir);
    expect(coloured.stdout).toContain('\x1b[32m');
    const plain = await cli(['run', '--topic', 'wallet', '--runs', '2', '--report-dir', join(dir, 'c')], { NO_COLOR: '1' }, dir);
    expect(plain.stdout).not.toContain('\x1b[');
    expect(plain.stdout).toMatch(/^ {2}✓ wallet /m);
    expect(plain.stdout).toContain(`report: ${join(dir, 'c', 'report.html')}`);
  });

  it('--quiet prints the named failures, the verdict and the report files only; --max-failures stops early with exit 1', async () => {
    const dir = tempDir('quiet');
    const args = ['run', '--topic', 'wallet', '--runs', '2', '--defects', 'available-differs-from-current,wallet-currency-lower-case', '--quiet'];
    const all = await cli([...args, '--report-dir', join(dir, 'all')], {}, dir);
    expect(all.code).toBe(1);
    expect(all.stdout).not.toContain('seed: ');
    expect(all.stdout).not.toMatch(/✗ wallet/);
    const failed = (JSON.parse(readFileSync(join(dir, 'all', 'report.json'), 'utf8')) as { topics: Array<{ checks: Array<{ id: string; status: string }> }> }).topics
      .flatMap((t) => t.checks)
      .filter((c) => c.status === 'fail');
    expect(failed.length).toBeGreaterThan(1);
    for (const check of failed) expect(all.stdout).toContain(`failed ${check.id}: `);

    const stopped = await cli([...args, '--max-failures', '1', '--report-dir', join(dir, 'stopped')], {}, dir);
    expect(stopped.code).toBe(1);
    expect(stopped.stdout).toMatch(/stopped early: \d+ checks? (was|were) not run/);
    const checks = (JSON.parse(readFileSync(join(dir, 'stopped', 'report.json'), 'utf8')) as { topics: Array<{ checks: Array<{ status: string; reason: string | null }> }> }).topics.flatMap((t) => t.checks);
    expect(checks.filter((c) => c.status === 'fail')).toHaveLength(1);
    expect(checks.some((c) => c.status === 'skip' && c.reason?.includes('--max-failures 1'))).toBe(true);
  });
});

describe('--check and --exclude-check', { timeout: 120_000 }, () => {
  it('globs match check ids and requirement ids; exclusion wins', () => {
    const sel = (include: string[], exclude: string[] = []) => ({ include, exclude });
    expect(checkSelected(undefined, 'wallet/a', ['WAL-X'])).toBe(true);
    expect(checkSelected(sel(['wallet/*']), 'wallet/a', ['WAL-X'])).toBe(true);
    expect(checkSelected(sel(['WAL-*']), 'wallet/a', ['WAL-X'])).toBe(true);
    expect(checkSelected(sel(['cursors/*']), 'wallet/a', ['WAL-X'])).toBe(false);
    expect(checkSelected(sel(['wallet/*'], ['WAL-X']), 'wallet/a', ['WAL-X'])).toBe(false);
    expect(checkSelected(sel([], ['wallet/?']), 'wallet/a', [])).toBe(false);
    expect(checkSelected(sel(['wallet']), 'wallet/a', [])).toBe(false);
  });

  it('a run keeps only the selected checks; a selection of nothing is exit 2', async () => {
    const dir = tempDir('select');
    const run = await cli(['run', '--topic', 'wallet', '--runs', '2', '--check', 'wallet/currency-*', '--check', 'WAL-AVAILABLE-EQUALS-CURRENT', '--report-dir', join(dir, 'r')], {}, dir);
    expect(run.code, run.stderr).toBe(0);
    const ids = (JSON.parse(readFileSync(join(dir, 'r', 'report.json'), 'utf8')) as { topics: Array<{ checks: Array<{ id: string; requirements: string[] }> }> }).topics.flatMap((t) => t.checks);
    expect(ids.length).toBeGreaterThan(0);
    for (const c of ids) expect(c.id.startsWith('wallet/currency-') || c.requirements.includes('WAL-AVAILABLE-EQUALS-CURRENT'), c.id).toBe(true);
    const none = await cli(['run', '--topic', 'wallet', '--runs', '2', '--check', 'nothing/*', '--report-dir', join(dir, 'n')], {}, dir);
    expectOneLineRefusal(none, 'CONF_INVALID_VALUE');
    expect(none.stderr).toContain('selected no check');
  });
});

describe('--header', { timeout: 120_000 }, () => {
  it('goes on every API request, never to the token endpoint; a credential-like value is never shown', async () => {
    const fake = await startFakeTarget();
    const gatewayKey = 'CANARY-GATEWAY-KEY-51d2e8';
    try {
      const dir = tempDir('header');
      const result = await cli(['run', '--topic', 'wallet', '--runs', '2', '--header', `X-Gateway-Key: ${gatewayKey}`, '--header', 'X-Tenant: blue', '--report-dir', join(dir, 'r')], fakeEnv(fake), dir);
      expect([0, 1]).toContain(result.code);
      const api = fake.calls.filter((c) => !c.url.startsWith('/oauth2/token'));
      const token = fake.calls.filter((c) => c.url.startsWith('/oauth2/token'));
      expect(api.length).toBeGreaterThan(0);
      expect(token.length).toBeGreaterThan(0);
      for (const call of api) expect([call.headers['x-gateway-key'], call.headers['x-tenant']]).toEqual([gatewayKey, 'blue']);
      for (const call of token) expect(call.headers['x-gateway-key']).toBeUndefined();
      const written = ['report.json', 'report.md', 'report.html', 'junit.xml', 'exchanges.jsonl'].map((f) => readFileSync(join(dir, 'r', f), 'utf8')).join('\n');
      expect(written).toContain('x-tenant');
      for (const text of [written, result.stdout, result.stderr]) {
        expect(text).not.toContain(gatewayKey);
        expect(text).not.toContain(CANARY_SECRET);
      }
    } finally {
      await fake.close();
    }
  });

  it('refuses a malformed header or one the run sets itself, without echoing the value', async () => {
    for (const header of [`no colon ${CANARY_SECRET}`, `Authorization: Bearer ${CANARY_SECRET}`]) {
      const lines: string[] = [];
      expect(await main(['run', '--header', header], { out: (l) => lines.push(l), err: (l) => lines.push(l) })).toBe(2);
      expect(lines.join('\n')).toContain('--header');
      expect(lines.join('\n')).not.toContain(CANARY_SECRET);
    }
  });
});

describe('no secret in any new output', { timeout: 120_000 }, () => {
  it('--help, --version, --json, --quiet, GitHub annotations and the job summary never show the canary secret', async () => {
    const fake = await startFakeTarget();
    try {
      const dir = tempDir('canary');
      const env = { ...fakeEnv(fake), CONFORMANCE_LIMITED_CLIENT_ID: 'limited', CONFORMANCE_LIMITED_CLIENT_SECRET: `${CANARY_SECRET}-limited` };
      const outputs: string[] = [];
      for (const args of [['run', '--help'], ['--version'], ['help']]) {
        const result = await cli(args, env, dir);
        expect(result.code).toBe(0);
        outputs.push(result.stdout, result.stderr);
      }
      const summaryFile = join(dir, 'summary.md');
      // The fake target echoes the credentials and the client secret in every body: failures quote them.
      for (const [i, mode] of ['--json', '--quiet'].entries()) {
        const result = await cli(['run', '--topic', 'wallet', '--runs', '2', mode, '--report-dir', join(dir, `r${i}`)], { ...env, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summaryFile }, dir);
        expect(result.code, result.stderr).toBe(1);
        if (mode === '--json') expect((JSON.parse(result.stdout) as { verdict: string }).verdict).toBe('fail');
        outputs.push(result.stdout, result.stderr);
      }
      outputs.push(readFileSync(summaryFile, 'utf8'));
      expect(outputs.join('\n')).toContain('::error title=');
      for (const text of outputs) expect(text).not.toContain(CANARY_SECRET);
    } finally {
      await fake.close();
    }
  });
});
