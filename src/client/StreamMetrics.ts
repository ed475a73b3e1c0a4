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

interface Entry {
  latency: LatencyTracker;
  staleness: LatencyTracker;
  lastServerNs: bigint;
}

export class StreamMetrics {
  private readonly entries = new Map<string, Entry>();

  private entry(stream: string): Entry {
    let e = this.entries.get(stream);
    if (!e) {
      e = { latency: new LatencyTracker({ unit: 'us' }), staleness: new LatencyTracker({ unit: 'us' }), lastServerNs: 0n };
      this.entries.set(stream, e);
    }
    return e;
  }

  /** One update of `stream`: its server time and local receive time (ns). */
  record(stream: string, timestampNs: bigint, receivedAtNs: bigint): void {
    const e = this.entry(stream);
    e.latency.record(receivedAtNs - timestampNs);
    if (e.lastServerNs > 0n) e.staleness.record(receivedAtNs - e.lastServerNs);
    e.lastServerNs = timestampNs;
  }

  snapshot(): StreamMetricsSnapshot[] {
    return [...this.entries].map(([stream, e]) => ({ stream, latency: e.latency.percentiles(), staleness: e.staleness.percentiles() }));
  }
}
