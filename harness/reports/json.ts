// report.json: the RunResult itself, the shape of the outside interface (spec/report.schema.json).
import type { RunResult } from '../result.ts';

export function renderJson(result: RunResult): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}
