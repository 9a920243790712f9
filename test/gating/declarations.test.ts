// `plan` reads the suites' declarations without vitest (harness/gating/declarations.ts). What it
// reads must be what vitest collects from the same files under the same configuration (the run
// executes vitest's view): the same checks, titles, budgets, planned skips and writes, for every
// kind of run, and for each shard the same files. A file it cannot read is a problem, never an
// empty plan. vitest collects as for a run of one check at a time: an overlapped host run loads the
// same suite files through suites/support/overlap.entry.ts, whose lanes start each check as it is
// declared, so collecting that entry would send requests; the declarations are the same check()
// calls either way.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createVitest } from 'vitest/node';
import type { CheckMeta } from '../../core/model.ts';
import { loadConfig, type RunConfig } from '../../harness/config.ts';
import { collectDeclarations } from '../../harness/gating/declarations.ts';
import { collectPlan, planSuiteConfig, withCheckBudgets } from '../../harness/gating/plan.ts';
import { topicOfFile } from '../../harness/output.ts';
import { SUITES_DIR, orderTopics, suiteFileName } from '../../harness/package.ts';
import { suiteRunOptions } from '../../harness/vitest-options.ts';

const silent = () => new Writable({ write: (_chunk, _encoding, callback) => callback() });

/** What vitest's collect mode sees (the plan's former source): title and meta of each test, in order. */
async function collectedByVitest(config: RunConfig): Promise<Array<{ title: string; meta: CheckMeta }>> {
  const files = config.topics.map((topic) => join(SUITES_DIR, suiteFileName(topic)));
  const vitest = await createVitest(
    'test',
    suiteRunOptions({ suitesDir: SUITES_DIR, files, suiteConfig: planSuiteConfig(config), reporters: [], ...(config.shard ? { shard: config.shard } : {}) }) as never,
    {},
    { stdout: silent(), stderr: silent() },
  );
  try {
    const collected = await vitest.collect();
    process.exitCode = undefined;
    const modules = orderTopics([...collected.testModules], (m) => topicOfFile(m.moduleId));
    return modules.flatMap((m) => [...m.children.allTests()].map((test) => ({ title: test.name, meta: test.meta().conformance! })));
  } finally {
    await vitest.close();
  }
}

function configOf(flags: Record<string, string>, env: Record<string, string> = {}): RunConfig {
  return withCheckBudgets(loadConfig({ seed: '5', ...flags }, env, mkdtempSync(join(tmpdir(), 'declarations-'))));
}

const HOST_ENV = {
  CONFORMANCE_BASE_URL: 'https://sandbox.example.test',
  CONFORMANCE_TOKEN_URL: 'https://auth.example.test/oauth2/token',
  CONFORMANCE_CLIENT_ID: 'client',
  CONFORMANCE_CLIENT_SECRET: 'canary-secret-declarations',
  CONFORMANCE_BUSINESS_ID: '0190a5a5-0000-7000-8000-000000000001',
};

describe('declarations read without vitest', { timeout: 120_000 }, () => {
  const runs: Array<[string, () => RunConfig]> = [
    ['embedded, profile full', () => configOf({})],
    ['embedded, profile safe, 3 runs', () => configOf({ profile: 'safe', runs: '3' })],
    ['a host with few fixtures (no control origin)', () => configOf({}, HOST_ENV)],
    ['two checks chosen by --check', () => configOf({ check: 'wallet/*,cursors/walk-visits-every-row-once' })],
  ];

  it.each(runs)('are what vitest collects: %s', async (_name, make) => {
    const config = make();
    const byVitest = await collectedByVitest(config);
    const plan = await collectPlan(config);
    expect(plan.problems).toEqual([]);
    expect(byVitest.length).toBeGreaterThan(0);
    expect(plan.checks).toEqual(
      byVitest.map(({ title, meta }) => ({
        id: meta.checkId,
        title,
        topic: meta.topic,
        maxRequests: meta.maxRequests,
        requirements: meta.requirements,
        ...(meta.plannedSkip !== undefined ? { skip: meta.plannedSkip, skipKind: meta.plannedSkipKind ?? 'precondition' } : {}),
        ...(meta.writes !== undefined ? { writes: meta.writes } : {}),
      })),
    );
  });

  it('choose for each shard the topic files vitest runs in it', async () => {
    for (const shard of ['1/3', '2/3', '3/3']) {
      const config = configOf({ shard });
      const byVitest = new Set((await collectedByVitest(config)).map((c) => c.meta.topic));
      const planned = new Set((await collectPlan(config)).checks.map((c) => c.topic));
      expect([...planned].sort(), shard).toEqual([...byVitest].sort());
    }
  });

  it('name a file that declares through vitest itself, or does not load, as a problem', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'declarations-suites-'));
    const direct = join(dir, 'direct.suite.ts');
    const broken = join(dir, 'broken.suite.ts');
    writeFileSync(direct, "import { describe, it } from 'vitest';\ndescribe('x', () => { it('y', () => {}); });\n");
    writeFileSync(broken, "throw new Error('this suite does not load');\n");
    const found = await collectDeclarations([direct, broken], planSuiteConfig(configOf({})), dir);
    // Outside a test vitest's describe does nothing; inside one (here) it throws: a problem either way.
    expect(found[0]?.declared).toEqual([]);
    expect(found[0]?.error).toMatch(/^direct\.suite\.ts: /);
    expect(found[1]?.error).toBe('broken.suite.ts: this suite does not load');
  });

  it('read the same declarations again for another configuration in the same process', async () => {
    const full = await collectPlan(configOf({}));
    const safe = await collectPlan(configOf({ profile: 'safe' }));
    // Profile safe skips the checks that create bulks before they send: read afresh, not from the first import.
    const runInFull = new Set(full.checks.filter((c) => c.skip === undefined).map((c) => c.id));
    const skippedBySafe = safe.checks.filter((c) => c.skip !== undefined && runInFull.has(c.id));
    expect(skippedBySafe.length).toBeGreaterThan(0);
    for (const check of skippedBySafe) expect(check.maxRequests, check.id).toBe(0);
  });

  it('load no ajv: budgets are counted, not built (its ~80 ms would be most of what `plan` spends beyond its goal)', () => {
    // A process of its own, so nothing another test loaded counts.
    const script = [
      "import { createRequire } from 'node:module';",
      "import { loadConfig } from './harness/config.ts';",
      "import { collectPlan } from './harness/gating/plan.ts';",
      // An empty folder: a .env of the checkout must not point this plan at a host.
      "const plan = await collectPlan(loadConfig({ seed: '5' }, {}, process.argv[1]));",
      "const loaded = Object.keys(createRequire(import.meta.url).cache).filter((file) => /[\\\\/]node_modules[\\\\/]ajv/.test(file));",
      'console.log(JSON.stringify({ checks: plan.checks.length, problems: plan.problems, loaded }));',
    ].join('\n');
    const root = new URL('../..', import.meta.url);
    const empty = mkdtempSync(join(tmpdir(), 'declarations-ajv-'));
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, empty], { cwd: root, encoding: 'utf8' });
    const { checks, problems, loaded } = JSON.parse(out.trim().split('\n').pop()!) as { checks: number; problems: string[]; loaded: string[] };
    expect(problems).toEqual([]);
    expect(checks).toBeGreaterThan(100);
    expect(loaded).toEqual([]);
  });
});
