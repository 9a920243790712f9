// `npm run matrix`: the mutation matrix (scripts/matrix.ts), then the blind round
// (scripts/blind.ts), with their options, figures and report files.
//
//   npm run matrix [-- --seeds 11,22,33 --concurrency 2 --json out.json --keep-runs --blind]
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BLIND_DEFECTS } from '../reference/blind-defects.ts';
import { DEFECTS } from '../reference/defects.ts';
import { blindLines, runBlindRound } from './blind.ts';
import { writeCatchers } from './catchers.ts';
import { DEFAULT_RATE_LIMITS, DEFAULT_HOST_SEEDS, freshSeeds, matrixTable, runMatrix, writeMatrixReport, type HostMatrixOptions } from './matrix.ts';
import { SEED_RANGE, scriptMain, usageError, wholeNumber, wholeNumbers } from './script-args.ts';

const MATRIX_OPTIONS = {
  seeds: { type: 'string' },
  concurrency: { type: 'string' },
  defects: { type: 'string' },
  json: { type: 'string' },
  'keep-runs': { type: 'boolean' },
  'write-catchers': { type: 'boolean' },
  'catchers-only': { type: 'boolean' },
  'no-host': { type: 'boolean' },
  'host-seeds': { type: 'string' },
  'rate-limits': { type: 'string' },
  'defect-seed': { type: 'string' },
  blind: { type: 'boolean' },
  'no-blind': { type: 'boolean' },
} as const;

const MATRIX_USAGE = [
  'usage: npm run matrix [-- options]',
  '',
  'Runs every named defect of the embedded reference and checks each is caught, against the embedded',
  'reference and in host mode (the reference served as a host, the run given only an env file).',
  '',
  '  --seeds a,b           faithful embedded runs with these seeds (default: a fixed pair)',
  '  --defect-seed N       seed of the embedded defect runs (default 4242; another shows what a seed changes)',
  '  --defects id,id       only these defects (with --blind: only these blind defects)',
  '  --concurrency N       runs at once (default 2)',
  '  --no-host             leave host mode out',
  '  --host-seeds a,b      faithful host runs with these seeds (default: 5 fresh random seeds, printed)',
  "  --rate-limits r,s     host runs behind these rate limits per second ('' for none; default 5)",
  '  --keep-runs           keep every run\'s report directory',
  '  --write-catchers      rewrite scripts/catchers.json (every defect run, all caught)',
  '  --catchers-only       each defect runs only the checks that caught it (catchers.json), as npm test does',
  '  --json FILE           the whole result as JSON',
  '  --blind               only the blind round: reference/blind-defects.ts, scored apart (scripts/blind.ts)',
  '  --no-blind            leave the blind round out (it runs after the matrix otherwise)',
];

async function main(): Promise<number> {
  return scriptMain('matrix', MATRIX_USAGE, MATRIX_OPTIONS, async (values) => {
    const blindRound = async (): Promise<string[]> => {
      // With --blind, --defects names a subset of the blind ids (a quick round while fixing misses).
      const only = values.blind ? values.defects?.split(',').map((s) => s.trim()) : undefined;
      const unknown = only?.filter((id) => !BLIND_DEFECTS.some((d) => d.id === id)) ?? [];
      if (unknown.length > 0) throw usageError(`--defects: unknown blind defect(s) ${unknown.join(', ')}`);
      const defects = only ? BLIND_DEFECTS.filter((d) => only.includes(d.id)) : BLIND_DEFECTS;
      const seeds = freshSeeds(2);
      process.stdout.write(`blind round: ${defects.length} defects, embedded seed ${seeds[0]}, host seed ${seeds[1]}\n`);
      const round = await runBlindRound(defects, { seed: seeds[0]!, hostSeed: seeds[1]!, concurrency: wholeNumber(values.concurrency, '--concurrency', 1, 64) ?? 2, progress: (line) => process.stdout.write(`${line}\n`) });
      if (values.json) writeFileSync(values.blind ? values.json : `${values.json}.blind.json`, JSON.stringify(round));
      return blindLines(round);
    };
    if (values.blind) {
      process.stdout.write(`\n${(await blindRound()).join('\n')}\n`);
      return 0;
    }
    const only = values.defects?.split(',').map((s) => s.trim());
    const unknown = only?.filter((id) => !DEFECTS.some((d) => d.id === id)) ?? [];
    if (unknown.length > 0) throw usageError(`--defects: unknown defect(s) ${unknown.join(', ')}`);
    // A malformed list is refused whole, never read in part (an empty --rate-limits once read as a limit of 0).
    const seeds = wholeNumbers(values.seeds, '--seeds', ...SEED_RANGE);
    const hostSeeds = wholeNumbers(values['host-seeds'], '--host-seeds', ...SEED_RANGE);
    const rateLimits = wholeNumbers(values['rate-limits'], '--rate-limits', 1, 100_000);
    const concurrency = wholeNumber(values.concurrency, '--concurrency', 1, 64) ?? 2;
    const defectSeed = wholeNumber(values['defect-seed'], '--defect-seed', ...SEED_RANGE);
    if (values['catchers-only'] && values['write-catchers']) throw usageError('--catchers-only runs only the recorded catchers: --write-catchers needs whole topics');
    const host: HostMatrixOptions | undefined = values['no-host']
      ? undefined
      : {
          faithfulSeeds: hostSeeds && hostSeeds.length > 0 ? hostSeeds : freshSeeds(DEFAULT_HOST_SEEDS),
          rateLimits: rateLimits ?? DEFAULT_RATE_LIMITS,
          defectSeed: process.env.MATRIX_DEFECT_SEED ? Number(process.env.MATRIX_DEFECT_SEED) : freshSeeds(1)[0]!,
          ...(only ? { defects: DEFECTS.filter((d) => only.includes(d.id)) } : {}),
        };
    if (host) process.stdout.write(`host mode: faithful seeds ${host.faithfulSeeds.join(', ')}; defect seed ${host.defectSeed}; rate limits ${host.rateLimits.length > 0 ? `${host.rateLimits.join(', ')}/s` : 'none'}\n`);
    const result = await runMatrix({
      ...(host ? { host } : {}),
      ...(seeds && seeds.length > 0 ? { faithfulSeeds: seeds } : {}),
      ...(only ? { defects: DEFECTS.filter((d) => only.includes(d.id)) } : {}),
      concurrency,
      keepRuns: Boolean(values['keep-runs']),
      updateCatchers: Boolean(values['write-catchers']),
      catchersOnly: Boolean(values['catchers-only']),
      ...(defectSeed !== undefined ? { defectSeed } : {}),
      progress: (line) => process.stdout.write(`${line}\n`),
    });
    process.stdout.write(`\n${matrixTable(result).join('\n')}\n`);
    if (values['write-catchers']) {
      if (only || !result.defects.every((d) => d.caught)) {
        process.stderr.write('matrix: --write-catchers needs every defect run and caught; scripts/catchers.json left as it was\n');
        return 1;
      }
      writeCatchers(result.defects);
      process.stdout.write('written: scripts/catchers.json\n');
    }
    const file = writeMatrixReport(result);
    process.stdout.write(`written: ${file}\n`);
    // Measured, not gated: the blind figure predicts a user's host; its misses are work, not regressions.
    if (!values['no-blind'] && !only) process.stdout.write(`\n${(await blindRound()).join('\n')}\n`);
    if (values.json) writeFileSync(values.json, JSON.stringify(result));
    return result.ok ? 0 : 1;
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  void main().then((code) => process.exit(code));
}
