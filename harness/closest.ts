// "Did you mean ...?": the known name nearest to a mistyped one, by edit distance (Levenshtein).

export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The nearest known name, when it is near enough to be a typo (case ignored); else undefined. */
export function closest(name: string, known: Iterable<string>): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(name.toUpperCase(), candidate.toUpperCase());
    if (!best || distance < best.distance) best = { name: candidate, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(name.length / 4)) ? best.name : undefined;
}

/** ` (did you mean X?)`, or nothing when no known name is near. */
export function didYouMean(name: string, known: Iterable<string>): string {
  const near = closest(name, known);
  return near ? `; did you mean ${near}?` : '';
}
