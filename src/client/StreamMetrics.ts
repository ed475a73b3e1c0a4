/**
 * Latency and staleness histograms per stream (LatencyTracker).
 * Latency: server send time (`timestamp_ns`) to local receive time, per update. Staleness:
 * how old a replica's newest data was when the next update replaced it (receive time minus
 * the previous update's server time), i.e. the worst age a reader could have seen.
 */
import { LatencyTracker, type LatencyPercentiles } from '../metrics';

export interface StreamMetricsSnapshot {
  readonly stream: string;
  readonly latency: LatencyPercentiles;
  readonly staleness: LatencyPercentiles;
}

/** The histograms of one stream; `record` is on the hot path (one call per update, no lookup). */
export class StreamTimer {
  readonly latency = new LatencyTracker({ unit: 'us' });
  readonly staleness = new LatencyTracker({ unit: 'us' });
  private lastServerNs = 0n;

  /** One update: its server time and local receive time (ns). */
  record(timestampNs: bigint, receivedAtNs: bigint): void {
    this.latency.record(receivedAtNs - timestampNs);
    if (this.lastServerNs > 0n) this.staleness.record(receivedAtNs - this.lastServerNs);
    this.lastServerNs = timestampNs;
  }
}

export class StreamMetrics {
  private readonly timers = new Map<string, StreamTimer>();

  /** The timer of `stream`, created on first use: the caller keeps it and records through it. */
  timer(stream: string): StreamTimer {
    let t = this.timers.get(stream);
    if (!t) {
      t = new StreamTimer();
      this.timers.set(stream, t);
    }
    return t;
  }

  /** Streams that had at least one update. */
  snapshot(): StreamMetricsSnapshot[] {
    return [...this.timers].filter(([, t]) => t.latency.count > 0).map(([stream, t]) => ({ stream, latency: t.latency.percentiles(), staleness: t.staleness.percentiles() }));
  }
}
