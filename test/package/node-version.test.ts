// The bin's Node version guard (bin/node-version.mjs): the rule with injected versions, package.json's
// `engines` written from the same lines, and one real run of the bin on a Node too old to run the
// checker (pinned in .ci/node-too-old, fetched by .ci/run), which must end in one line and exit 2
// before anything that needs a newer Node loads.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { enginesRange, isSupportedNode, nodeVersionProblem } from '../../bin/node-version.mjs';
import { pinnedNode, withNodeFirst } from '../../scripts/node-lines.ts';
import { ROOT, packageEnv } from './commands.ts';

const BIN = join(ROOT, 'bin', 'conformance.mjs');

describe('which Node the checker runs on', () => {
  it.each([
    ['20.19.0', true],
    ['20.20.2', true],
    ['22.12.0', true],
    ['22.22.1', true],
    ['24.0.0', true],
    ['24.21.0', true],
    ['26.12.1', true],
    ['20.18.3', false],
    ['21.7.3', false],
    ['22.11.0', false],
    ['18.20.8', false],
    ['16.20.2', false],
    ['12.22.12', false],
    ['', false],
    ['not-a-version', false],
  ])('Node %s: supported %s', (version, supported) => {
    expect(isSupportedNode(version)).toBe(supported);
    expect(nodeVersionProblem(version) === '').toBe(supported);
  });

  it('names the Node it is on and the Node it needs, in one line', () => {
    const line = nodeVersionProblem('18.20.8');
    expect(line).toBe('conformance: this is Node 18.20.8; the checker needs Node 22.12 or later (the 22 and 24 LTS lines), or 20.19 or a later 20.x');
    expect(line).not.toContain('\n');
  });

  it('is what package.json declares in engines', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(manifest.engines.node).toBe(enginesRange());
    expect(enginesRange()).toBe('^20.19.0 || >=22.12.0');
  });

  it('admits the Node running these tests', () => {
    expect(nodeVersionProblem(process.versions.node)).toBe('');
  });
});

const old = pinnedNode('node-too-old');
const work = mkdtempSync(join(tmpdir(), 'conformance-old-node-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// Node 22 and 24 compile in the background (Maglev, concurrent Sparkplug), and a background compile
// can deadlock process.exit (nodejs/node#54918; a finished certify hung in CI on Node 24.21). The
// bin turns both off as it starts; Maglev's compiles are what --trace-opt shows (Sparkplug's flag is
// set by the same line of the bin). Runs on the second line (Node 24); Node 20 has neither on.
const maglevByDefault = /--maglev \(enable the maglev[^\n]*\n\s*type: bool\s+default: --maglev\b/.test(
  spawnSync(process.execPath, ['--v8-options'], { encoding: 'utf8' }).stdout,
);

describe('the bin on a Node that compiles in the background', () => {
  it.skipIf(!maglevByDefault)('turns Maglev off before loading the checker: none of a plan\'s hot functions is compiled by it (930 without)', () => {
    const traced = spawnSync(process.execPath, ['--trace-opt', BIN, 'plan'], { cwd: work, env: packageEnv(), encoding: 'utf8' });
    expect(traced.status).toBe(0);
    const maglev = traced.stdout.split('\n').filter((line) => line.startsWith('[compiling method') && line.includes('(target MAGLEV)'));
    // At most the few Node's own start compiles before the bin's first line runs.
    expect(maglev.length).toBeLessThan(5);
  });
});

describe(`the bin on Node ${old.version}`, () => {
  it.skipIf(!old.installed)(`stops with one line and exit 2, before loading the checker (skipped without .cache/node/${old.version}: .ci/fetch-node ${old.version})`, () => {
    const expected = `${nodeVersionProblem(old.version)}\n`;
    // As users start it (the shebang finds this Node on PATH), and as `node bin/conformance.mjs`.
    const viaShebang = spawnSync(BIN, ['run', '--topic', 'wallet'], { cwd: work, env: withNodeFirst(old.path, packageEnv()), encoding: 'utf8' });
    const viaNode = spawnSync(old.path, [BIN, '--version'], { cwd: work, env: packageEnv(), encoding: 'utf8' });
    for (const child of [viaShebang, viaNode]) {
      expect({ status: child.status, stdout: child.stdout, stderr: child.stderr }).toEqual({ status: 2, stdout: '', stderr: expected });
    }
  });
});
