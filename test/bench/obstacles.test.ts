// The bench names what stands in the way of each goal it misses (issue 20): every missed figure
// gets a line, a known one its recorded obstacle, an unknown one a line saying none is recorded.
import { describe, expect, it } from 'vitest';
import { obstacleLines } from '../../bench/obstacles.ts';

describe('obstacles of missed goals', () => {
  it('names the obstacle of each missed figure, and nothing for a figure at its goal', () => {
    const lines = obstacleLines([
      ["the same run against issue 20's goal: wall time (s)", '5.6', '5.6', '<= 4.0', 'MISS'],
      ['requests of a whole safe run', '249', '249', '< 300', 'PASS'],
      ['whole run against a host 50 ms away (reference served with --latency-ms 50), checks overlapped: wall time (s)', '10.4', '10.4', '<= 10.0', 'MISS'],
    ]);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^- the same run against issue 20's goal: wall time \(s\): embedded run, 4 s .*control origin/);
    expect(lines[1]).toMatch(/: host run, 10 s .*bound by its longest chain/);
  });

  it('names why a pace learned behind a fast host misses', () => {
    const row = ["whole run behind a host's limit of 40 requests a second (`serve --rate-limit`), the pace learned from its 429s: API requests a second kept", '18.55', '1163 requests in 64.2 s, 10 answers 429', '>= 32.00', 'MISS'];
    expect(obstacleLines([row])[0]).toMatch(/the first 429 sets 20 a second/);
  });

  it('labels start-up rows by command and code, tells the compiled plan from the sources, and names one obstacle once', () => {
    const lines = obstacleLines(
      [
        ['plan (all topics; imports the suites, no vitest)', 'dist/ (compiled)', '0.45', '0.50', '0.45 / 0.50', '<= 0.3', 'MISS'],
        ['--help', 'sources (tsx)', '0.42', '0.49', '0.42 / 0.49', '<= 0.3', 'MISS'],
        ['--help', 'dist/ (compiled)', '0.16', '0.15', '0.16 / 0.15', '<= 0.3', 'PASS'],
        ['baseline (a report of one topic)', 'sources (tsx)', '0.46', '0.52', '0.46 / 0.52', '<= 0.3', 'MISS'],
      ],
      2,
    );
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^- plan \(all topics; imports the suites, no vitest\), dist\/ \(compiled\): `plan` from dist\//);
    expect(lines[1]).toMatch(/^- --help, sources \(tsx\); baseline \(a report of one topic\), sources \(tsx\): from the sources, 0\.3 s/);
  });

  it('says a figure that could not be taken was not measured, rather than blaming its obstacle', () => {
    expect(obstacleLines([['bulk lifecycle waits on a host: ...', 'n/a', 'n/a', '<= 0.5', 'MISS']])[0]).toMatch(/: not measured \(n\/a\)/);
  });

  it('says so when a missed figure has no recorded obstacle, never leaving it silent', () => {
    expect(obstacleLines([['a figure nobody profiled', '9', '9', '<= 1', 'MISS']])).toEqual([
      '- a figure nobody profiled: no obstacle recorded in bench/obstacles.ts: profile it and say what stands in the way.',
    ]);
  });
});
