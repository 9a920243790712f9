// The assertion sites of the suites, read from their source: every line of a suite file that makes
// an assertion (`t.expect(`, `t.fail(`, or a support helper that asserts: `expectProblem(`,
// `expectNoServerFault(`, `submitAccepted(`), and every `t.reading('point', 'choice'` whose choice
// the readings catalogue (spec/readings.ts) says breaks a client, since the check warns there. A failure names its site the same way at run time
// (suites/support/sites.ts). A site no faithful-looking server can make fail carries a waiver:
// `// waiver: <why>` on its line or the line above.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readingOf } from '../spec/readings.ts';

const ASSERTION = /\bt\.(?:expect|fail)\(|\b(?:expectProblem|expectNoServerFault|submitAccepted)\(/;
const DEFINITION = /^\s*(?:import|export\s+(?:async\s+)?function|(?:async\s+)?function)\b/;
const WAIVER = /\/\/\s*waiver:\s*(.+)$/;
const READING = /\bt\.reading\(\s*'([a-z-]+)',\s*'([a-z-]+)'/;

/** A reading recorded with literal ids whose choice warns (it breaks a client). */
function warningReading(line: string): boolean {
  const m = READING.exec(line);
  const known = m ? readingOf({ point: m[1]!, choice: m[2]! }) : undefined;
  return known?.choice.breaks !== undefined && known.point.warns !== undefined;
}

export interface Site {
  /** `<topic>.suite.ts:<line>` */
  id: string;
  topic: string;
  /** Requirement ids written at the site (its line and the call's next lines, up to the next site). */
  requirements: string[];
  /** Why no faithful-looking server can make it fail, when waived. */
  waiver?: string;
}

/** A quoted requirement id (`'IDEM-KEY-LENGTH'`), as the assertions name them. */
const REQUIREMENT = /'([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)'/g;
/** Lines of one assertion call read for its requirement (a multi-line t.expect names it a few lines down). */
const CALL_LINES = 6;

const isSiteLine = (line: string) => (ASSERTION.test(line) || warningReading(line)) && !DEFINITION.test(line) && !line.trimStart().startsWith('//');

export function assertionSites(suitesDir: string): Site[] {
  const sites: Site[] = [];
  for (const file of readdirSync(suitesDir).filter((f) => f.endsWith('.suite.ts')).sort()) {
    const lines = readFileSync(join(suitesDir, file), 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (!isSiteLine(line)) return;
      const waiver = WAIVER.exec(line)?.[1] ?? WAIVER.exec(lines[i - 1] ?? '')?.[1];
      const call = [line];
      for (let j = i + 1; j < Math.min(lines.length, i + CALL_LINES) && !isSiteLine(lines[j]!); j++) call.push(lines[j]!);
      const requirements = [...new Set([...call.join('\n').matchAll(REQUIREMENT)].map((m) => m[1]!))];
      sites.push({ id: `${file}:${i + 1}`, topic: file.replace(/\.suite\.ts$/, ''), requirements, ...(waiver ? { waiver: waiver.trim() } : {}) });
    });
  }
  return sites;
}
