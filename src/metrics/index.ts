/** Latency and staleness measurement (time itself is read through `src/clock`), and the client's OpenTelemetry instruments. */
export { LatencyTracker, type LatencyPercentiles, type LatencyTrackerOptions, type LatencyUnit } from './LatencyTracker';
export { METER_NAME, METRIC_ATTRIBUTES, METRIC_INSTRUMENTS, type InstrumentSpec } from './metricInstruments';
export type { MeterProviderLike, MeterLike, HistogramLike, CounterLike, ObservableLike, ObservableResultLike, BatchObservableResultLike, BatchCallback, InstrumentOptions, MetricAttributes } from './MeterProviderLike';
export { ClientTelemetry, type ClientTelemetrySources, type FrameSource } from './ClientTelemetry';
export { ReplicaCensus, type TrackedReplica, type CountedResyncs, type TimedEmission, type ReplicaWatcher } from './ReplicaCensus';
