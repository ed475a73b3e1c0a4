/** Latency and staleness measurement (time itself is read through `src/clock`). */
export { LatencyTracker, type LatencyPercentiles, type LatencyTrackerOptions, type LatencyUnit } from './LatencyTracker';
