/**
 * An `ExchangeClient`'s measures recorded through OpenTelemetry (the instruments of
 * `METRIC_INSTRUMENTS`), on the meter the application's `meterProvider` gives. Made only when
 * the client was given one whose meter records (not the API's no-op meter): otherwise nothing
 * here exists and nothing is recorded.
 *
 * Per update, a stream's `StreamTimer` hands its latency and staleness to the stream's
 * `StreamRecorder` (two histogram records); per emission of a replica, one clock read and one
 * record. Counts that already exist (updates per stream, frames, resyncs, replicas by status)
 * are read at each collection by one batch callback, at no cost per event. Errors are counted
 * as they reach `errors$`. It ends with the client: when `errors$` completes (`close()`), the
 * callback and listeners are removed, so a closed client is neither observed nor retained.
 */
import type { Observable, Unsubscribable } from 'rxjs';
import type { Clock } from '../clock/Clock';
import type { ExchangeReplicaError } from '../errors';
import type { BatchCallback, BatchObservableResultLike, CounterLike, MeterLike, MeterProviderLike, MetricAttributes, ObservableLike } from './MeterProviderLike';
import { METER_NAME, METRIC_ATTRIBUTES, METRIC_INSTRUMENTS } from './metricInstruments';
import type { ReplicaCensus, ReplicaWatcher, TrackedReplica } from './ReplicaCensus';
import { StreamRecorder, type StreamHistograms } from './StreamRecorder';

/** A connection whose frames are counted (`Connection`: its `message` event). */
export interface FrameSource {
  on(event: 'message', listener: () => void): unknown;
  off(event: 'message', listener: () => void): unknown;
}

/** What the telemetry of a client reads and listens to. */
export interface ClientTelemetrySources {
  /** Emission times are read on it (the client's clock, not a recorder's copy: reading it records nothing). */
  readonly clock: Clock;
  /** The client's `errors$`: counted by code; its completion ends the telemetry. */
  readonly errors$: Observable<ExchangeReplicaError>;
  /** The feed connections whose frames are counted. */
  readonly connections: Iterable<FrameSource>;
}

/**
 * @example
 * const telemetry = ClientTelemetry.start(options.meterProvider, { clock, errors$, connections: [connection] });
 * const metrics = new StreamMetrics(telemetry); // each stream's timer records through it
 * const replicas = new ReplicaCensus(telemetry); // read at each collection; emissions timed
 */
export class ClientTelemetry implements ReplicaWatcher {
  private readonly meter: MeterLike;
  private readonly histograms: StreamHistograms;
  private readonly errors: CounterLike;
  private readonly observables: { readonly updates: ObservableLike; readonly frames: ObservableLike; readonly resyncs: ObservableLike; readonly replicas: ObservableLike };
  private readonly recorders = new Map<string, StreamRecorder>();
  private readonly clock: Clock;
  private readonly connections: FrameSource[];
  private readonly errorSubscription?: Unsubscribable;
  private readonly onFrame = (): void => void this.frames++;
  private readonly callback: BatchCallback = (result) => this.observe(result);
  private census?: ReplicaCensus;
  private frames = 0;
  private closed = false;

  /**
   * The telemetry of a client; undefined (the client records nothing, at no cost) without a
   * provider, or when its meter is a no-op one: the API's meter when no SDK is installed hands
   * out one shared instrument for every name, which records nothing, for the meter's life.
   * @throws whatever the provider's `getMeter` or the meter's instrument factories throw
   */
  static start(provider: MeterProviderLike | undefined, sources: ClientTelemetrySources): ClientTelemetry | undefined {
    if (provider === undefined) return undefined;
    const meter = provider.getMeter(METER_NAME);
    const i = METRIC_INSTRUMENTS;
    const updateLatency = meter.createHistogram(i.updateLatency.name, i.updateLatency.options);
    const staleness = meter.createHistogram(i.staleness.name, i.staleness.options);
    if (updateLatency === staleness) return undefined;
    return new ClientTelemetry(meter, { updateLatency, staleness, emissionLatency: meter.createHistogram(i.emissionLatency.name, i.emissionLatency.options) }, sources);
  }

  private constructor(meter: MeterLike, histograms: StreamHistograms, sources: ClientTelemetrySources) {
    const i = METRIC_INSTRUMENTS;
    this.meter = meter;
    this.clock = sources.clock;
    this.histograms = histograms;
    this.errors = meter.createCounter(i.errors.name, i.errors.options);
    this.observables = {
      updates: meter.createObservableCounter(i.updates.name, i.updates.options),
      frames: meter.createObservableCounter(i.frames.name, i.frames.options),
      resyncs: meter.createObservableCounter(i.resyncs.name, i.resyncs.options),
      replicas: meter.createObservableUpDownCounter(i.replicaCount.name, i.replicaCount.options),
    };
    meter.addBatchObservableCallback(this.callback, Object.values(this.observables));
    this.connections = [...sources.connections];
    for (const c of this.connections) c.on('message', this.onFrame);
    this.errorSubscription = sources.errors$.subscribe({ next: (e) => this.countError(e), error: () => this.close(), complete: () => this.close() });
  }

  /** The recorder of `stream`, made on first use (the stream's `StreamTimer` keeps it). */
  recorder(stream: string): StreamRecorder {
    let r = this.recorders.get(stream);
    if (r === undefined) {
      r = new StreamRecorder(stream, this.histograms);
      this.recorders.set(stream, r);
    }
    return r;
  }

  /** @internal ReplicaWatcher: the census read at each collection. */
  attach(census: ReplicaCensus): void {
    this.census = census;
  }

  /**
   * @internal ReplicaWatcher: times the replica's emissions of an applied update (not the
   * one a new subscriber is replayed: that one was emitted before).
   */
  watch(stream: string, replica: TrackedReplica): Unsubscribable {
    const recorder = this.recorder(stream);
    const clock = this.clock;
    let replaying = true;
    const subscription = replica.states$.subscribe({
      next: (e) => {
        if (!replaying && e.cause === 'update') recorder.recordEmission(Number(clock.nowNs() - e.timestampNs));
      },
      // The replica's failure reaches the application through its own subscribers and errors$.
      error: () => undefined,
    });
    replaying = false;
    return subscription;
  }

  /** Removes the batch callback and the listeners (idempotent). The client's `close()` does it through `errors$`. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.meter.removeBatchObservableCallback(this.callback, Object.values(this.observables));
    for (const c of this.connections) c.off('message', this.onFrame);
    // Undefined when errors$ completed during the subscribe call (a client closed at once).
    this.errorSubscription?.unsubscribe();
  }

  private countError(e: ExchangeReplicaError): void {
    const stream = e.context.stream;
    const attributes: MetricAttributes = stream === undefined ? { [METRIC_ATTRIBUTES.errorType]: e.code } : { ...this.recorder(stream).attributes, [METRIC_ATTRIBUTES.errorType]: e.code };
    this.errors.add(1, attributes);
  }

  private observe(result: BatchObservableResultLike): void {
    const o = this.observables;
    for (const r of this.recorders.values()) if (r.updates > 0) result.observe(o.updates, r.updates, r.attributes);
    result.observe(o.frames, this.frames);
    const census = this.census;
    if (census === undefined) return;
    census.forEachResyncCount((stream, reason, count) => result.observe(o.resyncs, count, { ...this.recorder(stream).attributes, [METRIC_ATTRIBUTES.resyncReason]: reason }));
    census.forEachStatusCount((channel, status, count) => result.observe(o.replicas, count, { [METRIC_ATTRIBUTES.channel]: channel, [METRIC_ATTRIBUTES.status]: status }));
  }
}
