/**
 * Runs of a property test: the count `npm test` affords (seeded, so the same cases each run),
 * times `PROPERTY_RUNS_SCALE` when set, for a longer search (e.g. `PROPERTY_RUNS_SCALE=20 npx
 * jest test/protocol`). The model tests have their own `MODEL_RUNS`.
 */
const SCALE = Number(process.env.PROPERTY_RUNS_SCALE ?? 1) || 1;

export function propertyRuns(inNpmTest: number): number {
  return Math.max(1, Math.round(inNpmTest * SCALE));
}
