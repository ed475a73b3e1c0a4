/** Latency and staleness measurement. */
export { LatencyTracker, type LatencyPercentiles, type LatencyTrackerOptions, type LatencyUnit } from './LatencyTracker';
export { wallClockNs } from './wallClockNs';
