// Runs fixture suites through vitest's Node API with the CheckCollector attached, as the runner
// does with the real suites.
import { fileURLToPath } from 'node:url';
import { startVitest } from 'vitest/node';
import { CheckCollector } from '../../harness/reporter.ts';
import { levelOf } from './catalogue.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

export async function runFixtures(files: string[]): Promise<CheckCollector> {
  const collector = new CheckCollector({ levelOf });
  const exitCode = process.exitCode;
  const vitest = await startVitest(
    'test',
    [],
    {
      root,
      config: false,
      watch: false,
      include: files.map((f) => `test/reports/fixtures/${f}`),
      reporters: [collector],
      pool: 'threads',
      maxWorkers: 1,
    },
    {},
    { stdout: new (await import('node:stream')).PassThrough(), stderr: new (await import('node:stream')).PassThrough() },
  );
  await vitest.close();
  // A failing fixture run marks the process as failed; this process only observed it.
  process.exitCode = exitCode;
  return collector;
}
