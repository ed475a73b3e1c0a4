/**
 * What one stream records into OpenTelemetry: its updates' latency and staleness (told by the
 * stream's `StreamTimer`, once per update), the latency of its replica's emissions, and its
 * count of updates (read by the `exchange_replica.updates` observable counter). One per
 * stream key, made by `ClientTelemetry`, with the stream's attributes made once.
 */
import type { HistogramLike, MetricAttributes } from './MeterProviderLike';
import { streamAttributes } from './metricInstruments';

/** The histograms a stream records into (shared by every stream of a client). */
export interface StreamHistograms {
  readonly updateLatency: HistogramLike;
  readonly staleness: HistogramLike;
  readonly emissionLatency: HistogramLike;
}

/** Nanoseconds to seconds; negative (the server's clock ahead of ours) is recorded as 0, as `LatencyTracker` does. */
function seconds(ns: number): number {
  return ns > 0 ? ns / 1e9 : 0;
}

/**
 * @example
 * const recorder = new StreamRecorder('book|market_id=0|is_perps=true', histograms);
 * recorder.record(latencyNs, stalenessNs); // per update
 */
export class StreamRecorder {
  readonly attributes: MetricAttributes;
  /** Updates recorded. */
  updates = 0;

  constructor(
    readonly stream: string,
    private readonly histograms: StreamHistograms,
  ) {
    this.attributes = streamAttributes(stream);
  }

  /** One update: its latency and the staleness it ended (NaN: none, the stream's first update), in ns. */
  record(latencyNs: number, stalenessNs: number): void {
    this.updates++;
    const h = this.histograms;
    h.updateLatency.record(seconds(latencyNs), this.attributes);
    if (stalenessNs === stalenessNs) h.staleness.record(seconds(stalenessNs), this.attributes); // not NaN
  }

  /** One emission of the stream's replica: server time to now, in ns. */
  recordEmission(latencyNs: number): void {
    this.histograms.emissionLatency.record(seconds(latencyNs), this.attributes);
  }
}
