// `check --partition i/n` and `check --merge-reports DIR...`: one traffic judged by n job runners,
// each recording verdicts on the exchanges of the businesses that hash to its partition
// (judge.ts), each writing its digest as traffic-partition.json beside its report; the merge adds
// them up into the report one pass would have written, and refuses (fails closed) when a partition
// is missing, given twice, of another count or of other files.
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HarnessError } from '../harness/errors.ts';
import { mergeDigests, type Digest, type PartitionFile } from './digest.ts';
import type { Partition } from './judge.ts';

export const PARTITION_FILE = 'traffic-partition.json';
const FORMAT = 'conformance-traffic-partition/1';

/** `i/n` (1 ≤ i ≤ n, as `run --shard` counts) as a zero-based partition. */
export function parsePartition(text: string): Partition {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index < 1 || index > count || count > 1024) {
    throw new HarnessError('CONF_INVALID_VALUE', `--partition must be i/n with 1 <= i <= n <= 1024 (got ${JSON.stringify(text)})`);
  }
  return { index: index - 1, count };
}

export async function writePartitionFile(dir: string, part: { partition: Partition; inputs: string[]; digest: Digest }): Promise<string> {
  const file: PartitionFile = { format: FORMAT, partition: part.partition, inputs: part.inputs, digest: part.digest };
  const path = join(dir, PARTITION_FILE);
  try {
    await writeFile(path, `${JSON.stringify(file)}\n`);
  } catch (error) {
    throw new HarnessError('REPORT_WRITE_FAILED', `${path} could not be written (${(error as { code?: string }).code ?? 'unknown'})`);
  }
  return path;
}

export interface ReadPartition {
  dir: string;
  file: PartitionFile;
}

export function readPartitionFiles(dirs: readonly string[]): ReadPartition[] {
  if (dirs.length === 0) throw new HarnessError('CONF_INVALID_VALUE', '--merge-reports needs the report folders of the partition runs (check --partition i/n)');
  return dirs.map((dir) => {
    const path = join(dir, PARTITION_FILE);
    if (!existsSync(path)) throw new HarnessError('CONF_INVALID_VALUE', `--merge-reports: no ${PARTITION_FILE} in ${dir} (was it written by check --partition i/n, and did that partition finish?)`);
    let file: PartitionFile;
    try {
      file = JSON.parse(readFileSync(path, 'utf8')) as PartitionFile;
    } catch {
      throw new HarnessError('CONF_INVALID_VALUE', `--merge-reports: ${path} is not JSON (cut while written?)`);
    }
    if (file?.format !== FORMAT || !file.digest || !Array.isArray(file.inputs)) {
      throw new HarnessError('CONF_INVALID_VALUE', `--merge-reports: ${path} is not a partition of check (format ${JSON.stringify(file?.format)})`);
    }
    return { dir, file };
  });
}

/** Every partition of one count over the same files, each once; else one line saying which is wrong. */
export function mergePartitionFiles(parts: readonly ReadPartition[]): Digest {
  const [head] = parts;
  const count = head!.file.partition.count;
  const inputs = JSON.stringify(head!.file.inputs);
  const seen = new Map<number, string>();
  for (const { dir, file } of parts) {
    const { index } = file.partition;
    if (file.partition.count !== count) throw new HarnessError('CONF_INVALID_VALUE', `--merge-reports: ${dir} is partition ${index + 1}/${file.partition.count}, the others are of ${count} partitions`);
    if (JSON.stringify(file.inputs) !== inputs) throw new HarnessError('CONF_INVALID_VALUE', `--merge-reports: ${dir} judged ${file.inputs.join(', ')}, ${head!.dir} judged ${head!.file.inputs.join(', ')}: partitions of different traffic`);
    if (file.digest.facts.read !== head!.file.digest.facts.read) throw new HarnessError('CONF_INVALID_VALUE', `--merge-reports: ${dir} read ${file.digest.facts.read} exchanges, ${head!.dir} read ${head!.file.digest.facts.read}: partitions of different traffic`);
    const twin = seen.get(index);
    if (twin !== undefined) throw new HarnessError('CONF_INVALID_VALUE', `--merge-reports: partition ${index + 1}/${count} given twice (${twin} and ${dir}); each partition must be merged once`);
    seen.set(index, dir);
  }
  const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !seen.has(i));
  if (missing.length > 0) {
    throw new HarnessError('CONF_INVALID_VALUE', `--merge-reports: partition${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i + 1}/${count}`).join(', ')} missing (no ${PARTITION_FILE} among the folders given); a merged verdict needs every partition`);
  }
  return mergeDigests([...parts].sort((a, b) => a.file.partition.index - b.file.partition.index).map((p) => p.file.digest));
}
