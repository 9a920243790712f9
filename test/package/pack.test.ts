// The package as a team installs it: `npm pack` (which compiles dist/ first), then
// `npm install ./<tarball>` into an empty project, then `npx conformance ...` from there against
// the embedded reference. This proves the tarball carries what a run needs (the compiled suites,
// spec, reference, harness) and no TypeScript nor anything of the repository's own tests, that
// the command runs the compiled code without tsx, and that vitest finds the suites under node_modules.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { enginesRange } from '../../bin/node-version.mjs';
import { ROOT, runCommand, startCommand } from './commands.ts';

const NAME = 'external-integration-api-conformance';
/** Commands a pipeline uses; each must exist in the installed CLI. */
const REQUIRED_COMMANDS = ['run', 'serve', 'plan', 'certify', 'help'];

interface PackedFile {
  path: string;
}

let work: string;
let app: string;
let packed: PackedFile[] = [];
let tarball = '';

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'conformance-pack-'));
  const pack = await runCommand('npm', ['pack', '--json', '--pack-destination', work], ROOT, 120_000);
  expect(pack.code, `npm pack failed:\n${pack.stderr}`).toBe(0);
  const [info] = JSON.parse(pack.stdout) as Array<{ filename: string; files: PackedFile[] }>;
  tarball = info!.filename;
  packed = info!.files;

  app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'api-under-test', version: '1.0.0', private: true }, null, 2));
  // The npm cache holds every dependency since the project installed them: fast and hermetic.
  const install = await runCommand('npm', ['install', join(work, tarball), '--prefer-offline', '--no-audit', '--no-fund'], app, 240_000);
  expect(install.code, `npm install of the tarball failed:\n${install.stderr}`).toBe(0);
}, 360_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const npx = (args: string[], timeoutMs = 180_000) => runCommand('npx', ['--no', 'conformance', ...args], app, timeoutMs);

describe('npm pack', () => {
  it('names the tarball after the package', () => {
    expect(tarball).toMatch(new RegExp(`^${NAME}-\\d+\\.\\d+\\.\\d+.*\\.tgz$`));
  });

  it('carries the command, the compiled harness, suites, spec and reference, and .env.example', () => {
    const paths = packed.map((f) => f.path);
    for (const needed of [
      'package.json',
      'bin/conformance.mjs',
      'bin/node-version.mjs',
      'dist/cli/main.js',
      'dist/harness/runner.js',
      'dist/harness/reports/html.js',
      'dist/harness/vitest-setup.js',
      'dist/traffic/judge.js',
      'dist/cli/traffic.js',
      'dist/suites/wallet.suite.js',
      'dist/suites/request-id.suite.js',
      'dist/suites/support/check.js',
      'dist/spec/openapi.yaml',
      'dist/spec/requirements.yaml',
      'dist/reference/index.js',
      'dist/generators/index.js',
      'spec/openapi.yaml',
      'spec/requirements.yaml',
      'spec/report.schema.json',
      '.env.example',
      'README.md',
    ]) {
      expect(paths, `${needed} missing from the tarball`).toContain(needed);
    }
  });

  it('carries no TypeScript and no tsx hooks: the package runs what was compiled at pack time', () => {
    const paths = packed.map((f) => f.path);
    expect(paths.filter((p) => /\.[cm]?ts$/.test(p) || p === 'tsconfig.json' || p === 'bin/ts-hooks.mjs')).toEqual([]);
  });

  it('leaves out the repository’s own tests, benchmarks, scripts, CI and reports', () => {
    const stray = packed
      .map((f) => f.path)
      .filter((p) => /^(test|bench|scripts|reports|examples|\.ci|\.git|node_modules|coverage)\//.test(p) || p === '.env' || p.endsWith('.tgz'));
    expect(stray).toEqual([]);
  });
});

// Each command starts Node and often vitest: generous on a loaded machine.
describe('installed into an empty project', { timeout: 240_000 }, () => {
  it('declares its command, the Node lines it runs on, the files and the exports', () => {
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules', NAME, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.bin).toEqual({ conformance: 'bin/conformance.mjs' });
    expect((manifest.engines as { node?: string }).node).toBe(enginesRange());
    expect(manifest.exports).toMatchObject({ './package.json': './package.json', './report.schema.json': './spec/report.schema.json' });
    expect(existsSync(join(app, 'node_modules', NAME, 'test'))).toBe(false);
    // What tools of the user's project may import: the report's JSON Schema and the spec files.
    const fromApp = createRequire(join(app, 'package.json'));
    const schema = JSON.parse(readFileSync(fromApp.resolve(`${NAME}/report.schema.json`), 'utf8')) as { $schema?: string };
    expect(schema.$schema).toMatch(/json-schema/);
    expect(fromApp.resolve(`${NAME}/openapi.yaml`)).toMatch(/spec[\\/]openapi\.yaml$/);
    // Run-time dependencies come along; the project installs no tooling of its own (tsx is the
    // checker's development tool only).
    expect(Object.keys(manifest.dependencies as Record<string, string>)).not.toContain('tsx');
    for (const dep of ['vitest', 'undici', 'ajv', 'ajv-formats', 'fast-check', 'yaml', 'dotenv', 'jose']) {
      expect(existsSync(join(app, 'node_modules', dep, 'package.json')), `${dep} not installed with the package`).toBe(true);
    }
  });

  it('runs the compiled dist/cli/main.js, registering no TypeScript hook', async () => {
    // `--` keeps npx from answering `--version` itself.
    const version = await runCommand('npx', ['--no', '--', 'conformance', '--version'], app, 120_000, { CONFORMANCE_DEBUG: '1' });
    expect(version.code, version.stderr).toBe(0);
    expect(version.stderr).toContain('conformance: running dist/cli/main.js (compiled)');
    expect(version.stdout).toMatch(new RegExp(`^${NAME} \\d+\\.\\d+\\.\\d+`));
    // Asking for the sources where there are none is refused rather than half-run.
    const sources = await runCommand('npx', ['--no', '--', 'conformance', '--version'], app, 120_000, { CONFORMANCE_CODE: 'source' });
    expect(sources.code).toBe(2);
    expect(sources.stderr).toContain('CONFORMANCE_CODE=source, but this package has no TypeScript sources');
  });

  it('lists run, serve, plan and certify in `npx conformance help`', async () => {
    const help = await npx(['help']);
    expect(help.code, help.stderr).toBe(0);
    const listed = [...help.stdout.matchAll(/^ {2}(\S+) {2,}/gm)].map((m) => m[1]);
    const missing = REQUIRED_COMMANDS.filter((c) => !listed.includes(c));
    expect(missing, `commands missing from the installed CLI: ${missing.join(', ')}`).toEqual([]);
  });

  it('`npx conformance run --topic wallet,request-id` passes against the embedded reference and writes the reports', async () => {
    const run = await npx(['run', '--topic', 'wallet,request-id', '--seed', '7']);
    expect(run.code, `exit ${run.code}\n${run.stdout}\n${run.stderr}`).toBe(0);
    const reportDir = join(app, 'reports');
    for (const file of ['report.json', 'report.md', 'report.html', 'junit.xml']) {
      expect(existsSync(join(reportDir, file)), `${file} not written`).toBe(true);
    }
    const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as {
      tool: { name: string };
      verdict: string;
      target: { embedded: boolean };
      topics: Array<{ id: string; checks: unknown[] }>;
    };
    expect(report.tool.name).toBe(NAME);
    expect(report.verdict).toBe('pass');
    expect(report.target.embedded).toBe(true);
    expect(report.topics.map((t) => t.id)).toEqual(['wallet', 'request-id']);
    // Suites found under node_modules: each topic ran real checks (a missing suite is an error, zero checks).
    for (const topic of report.topics) expect(topic.checks.length, `${topic.id} ran no check`).toBeGreaterThan(0);
  });

  it('`npx conformance serve` starts the reference, prints CONFORMANCE_BASE_URL, answers on it and stops on SIGTERM', async () => {
    const serve = startCommand('npx', ['--no', 'conformance', 'serve', '--env-out', 'reference.env'], app);
    let baseUrl = '';
    try {
      baseUrl = (await serve.waitForLine(/^CONFORMANCE_BASE_URL=(http:\/\/127\.0\.0\.1:\d+)$/m, 120_000))[1]!;
      await serve.waitForLine(/^CONFORMANCE_TOKEN_URL=http:\/\/127\.0\.0\.1:\d+\/oauth2\/token$/m, 10_000);
      const answer = await fetch(`${baseUrl}/v1/`);
      // Any HTTP answer proves the reference listens; the path itself is not a documented operation.
      expect(answer.status).toBeGreaterThanOrEqual(200);
      await answer.arrayBuffer();
      await vi.waitFor(() => expect(readFileSync(join(app, 'reference.env'), 'utf8')).toContain(`CONFORMANCE_BASE_URL=${baseUrl}\n`), { timeout: 10_000 });
    } finally {
      await serve.stop();
    }
    expect(serve.output()).not.toMatch(/conformance: /);
    await expect(fetch(`${baseUrl}/v1/`)).rejects.toThrow();
  });

  it('`npx conformance plan` prints the checks and their request budgets without sending anything', async () => {
    const plan = await npx(['plan', '--topic', 'wallet']);
    expect(plan.code, `${plan.stdout}\n${plan.stderr}`).toBe(0);
    expect(plan.stdout).toMatch(/wallet\//);
    expect(plan.stdout).toMatch(/total: \d+ checks in 1 topics?, at most \d+ requests/);
  });

  // Certification is of the full profile over every topic: a partial run is refused.
  it('`npx conformance certify` certifies the reference and writes certificate.json; `--topic` alone refuses', async () => {
    const partial = await npx(['certify', '--topic', 'wallet', '--report-dir', 'partial']);
    expect(partial.code, `${partial.stdout}\n${partial.stderr}`).toBe(1);
    expect(existsSync(join(app, 'partial', 'certificate.json'))).toBe(false);
    const certify = await npx(['certify', '--report-dir', 'certification']);
    expect(certify.code, `${certify.stdout}\n${certify.stderr}`).toBe(0);
    expect(certify.stdout).toMatch(/CERTIFIED/);
    expect(existsSync(join(app, 'certification', 'certificate.json'))).toBe(true);
  });
});
