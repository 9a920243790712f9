// docs/usage.md is the package's manual: its tables must name every command, every option and
// every variable the checker actually reads, so a new flag or variable cannot go undocumented.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../cli/main.ts';
import { VARIABLES } from '../../core/variables.ts';
import { TOPICS } from '../../core/model.ts';
import { ROOT } from './commands.ts';

const usage = readFileSync(join(ROOT, 'docs', 'usage.md'), 'utf8');
/** Table rows only: `| ... |` lines. */
const rows = usage.split('\n').filter((line) => line.startsWith('| '));
const rowOf = (cell: string) => rows.find((row) => row.startsWith(`| ${cell} |`));

describe('docs/usage.md', () => {
  it('has a row for every command, listing each of its options', () => {
    for (const command of COMMANDS.values()) {
      const row = rowOf(`\`${command.name}\``);
      expect(row, `no row for command ${command.name}`).toBeDefined();
      for (const option of Object.keys(command.options)) {
        expect(row, `${command.name} row lacks --${option}`).toContain(`\`--${option}\``);
      }
    }
  });

  it('explains every option in the option table', () => {
    const options = new Set([...COMMANDS.values()].flatMap((c) => Object.keys(c.options)));
    for (const option of options) expect(rowOf(`\`--${option}\``), `no row for --${option}`).toBeDefined();
  });

  it('has a row for every variable of harness/config.ts, with its default', () => {
    for (const variable of VARIABLES) {
      const row = rowOf(`\`${variable.name}\``);
      expect(row, `no row for ${variable.name}`).toBeDefined();
      if (variable.default && /^\w+$/.test(variable.default)) expect(row, `${variable.name} default`).toContain(variable.default);
      if (variable.requiredWithHost) expect(row, `${variable.name} is required against a host`).toContain('**required**');
    }
  });

  it('documents every CONFORMANCE_* variable the harness reads, beyond the VARIABLES list too', () => {
    const sources = ['harness/config.ts', 'cli/main.ts', 'harness/runner.ts'].map((f) => readFileSync(join(ROOT, f), 'utf8')).join('\n');
    const read = new Set([...sources.matchAll(/(?:get\(|process\.env\.)'?(CONFORMANCE_[A-Z_]+)/g)].map((m) => m[1]!));
    expect(read.size).toBeGreaterThan(10);
    for (const name of read) expect(rowOf(`\`${name}\``), `${name} is read but not documented`).toBeDefined();
  });

  it('lists every topic id and shows the report screenshot that exists', () => {
    for (const topic of TOPICS) expect(usage).toContain(`\`${topic}\``);
    const image = usage.match(/!\[[^\]]+\]\(([^)]+)\)/)?.[1];
    expect(image).toBe('report-screenshot.png');
    expect(existsSync(join(ROOT, 'docs', image!))).toBe(true);
  });
});
