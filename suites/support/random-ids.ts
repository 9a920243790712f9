// Ids that name nothing on the target: UUIDv7 values drawn from the generators with the run's
// seed, so a failing run replays with the same ids. Each label gives its own value, so two checks
// never share an id by accident.
import * as fc from 'fast-check';
import { uuidV7Arb } from '../../generators/domain.ts';
import type { CheckContext } from './check.ts';

// A fixed window of embedded times keeps the values independent of the day of the run.
const WINDOW = { min: new Date('2024-01-01T00:00:00Z'), max: new Date('2025-12-31T00:00:00Z') };

function labelHash(label: string): number {
  let h = 2166136261;
  for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** A UUIDv7 that no resource of the target has, the same for the same seed and label. */
export function randomUuidV7(t: CheckContext, label: string): string {
  const seed = (t.config.settings.seed ^ labelHash(label)) | 0;
  const [id] = fc.sample(uuidV7Arb(WINDOW), { seed, numRuns: 1 });
  return id!;
}
