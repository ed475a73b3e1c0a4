/**
 * Latency and staleness histograms per stream (LatencyTracker).
 * Latency: server send time (`timestamp_ns`) to local receive time, per update. Staleness:
 * how old a replica's newest data was when the next update replaced it (receive time minus
 * the previous update's server time), i.e. the worst age a reader could have seen.
 *
 * Samples are queued (three numbers each, in one array written in order) and recorded into
 * the histograms in batches: with hundreds of streams, recording each sample as it comes
 * touches a dozen cold cache lines of its stream's histograms between two of its updates;
 * a batch touches them while they stay in cache. Every read flushes the queue first, so a
 * snapshot holds every sample recorded before it.
 *
 * With the client's OpenTelemetry telemetry, each timer also hands its samples to its
 * stream's `StreamRecorder` as they come; without, that costs one undefined check.
 */
import { LatencyTracker, type LatencyPercentiles } from '../metrics';
import type { StreamRecorder } from '../metrics/StreamRecorder';

export interface StreamMetricsSnapshot {
  readonly stream: string;
  readonly latency: LatencyPercentiles;
  readonly staleness: LatencyPercentiles;
}

/** Samples held before they are recorded into the histograms (24 KB of queue). */
const QUEUE_SAMPLES = 1024;

/** The histograms of one stream; `record` is on the hot path (one call per update, no lookup). */
export class StreamTimer {
  readonly latency = new LatencyTracker({ unit: 'us' });
  readonly staleness = new LatencyTracker({ unit: 'us' });
  private lastServerNs = 0n;

  constructor(
    private readonly index: number,
    private readonly queue: SampleQueue,
    private readonly recorder?: StreamRecorder,
  ) {}

  /** One update: its server time and local receive time (ns). */
  record(timestampNs: bigint, receivedAtNs: bigint): void {
    // Exact below 2^53 ns (104 days); beyond, LatencyTracker would round the same way.
    const latencyNs = Number(receivedAtNs - timestampNs);
    const stalenessNs = this.lastServerNs > 0n ? Number(receivedAtNs - this.lastServerNs) : Number.NaN;
    this.lastServerNs = timestampNs;
    this.queue.push(this.index, latencyNs, stalenessNs);
    const recorder = this.recorder;
    if (recorder !== undefined) recorder.record(latencyNs, stalenessNs);
  }
}

/** The queued samples of every stream of one `StreamMetrics`. */
class SampleQueue {
  private readonly samples = new Float64Array(3 * QUEUE_SAMPLES);
  private length = 0;

  constructor(private readonly timers: readonly StreamTimer[]) {}

  /** `stalenessNs` NaN: none. */
  push(index: number, latencyNs: number, stalenessNs: number): void {
    let at = this.length;
    if (at === this.samples.length) {
      this.flush();
      at = 0;
    }
    const s = this.samples;
    s[at] = index;
    s[at + 1] = latencyNs;
    s[at + 2] = stalenessNs;
    this.length = at + 3;
  }

  /** Records every queued sample into its stream's histograms, in arrival order. */
  flush(): void {
    const s = this.samples;
    const end = this.length;
    this.length = 0;
    for (let at = 0; at < end; at += 3) {
      const timer = this.timers[s[at]!]!;
      timer.latency.record(s[at + 1]!);
      const staleness = s[at + 2]!;
      if (staleness === staleness) timer.staleness.record(staleness); // not NaN
    }
  }
}

/** Where each stream's timer also records (the client's `ClientTelemetry`). */
export interface StreamRecorders {
  recorder(stream: string): StreamRecorder;
}

export class StreamMetrics {
  private readonly timers = new Map<string, StreamTimer>();
  private readonly list: StreamTimer[] = [];
  private readonly queue = new SampleQueue(this.list);

  /** @param recorders where the timers also record @default none */
  constructor(private readonly recorders?: StreamRecorders) {}

  /** The timer of `stream`, created on first use: the caller keeps it and records through it. */
  timer(stream: string): StreamTimer {
    let t = this.timers.get(stream);
    if (!t) {
      t = new StreamTimer(this.list.length, this.queue, this.recorders?.recorder(stream));
      this.list.push(t);
      this.timers.set(stream, t);
    }
    return t;
  }

  /** Streams that had at least one update. */
  snapshot(): StreamMetricsSnapshot[] {
    this.queue.flush();
    return [...this.timers].filter(([, t]) => t.latency.count > 0).map(([stream, t]) => ({ stream, latency: t.latency.percentiles(), staleness: t.staleness.percentiles() }));
  }
}
