/**
 * The part of the OpenTelemetry metrics API (`@opentelemetry/api`, 1.x) the client records
 * through, typed structurally: the library never imports `@opentelemetry/api` (an optional
 * peer dependency), so it runs and bundles without it, and any object of this shape works (the
 * API's global `metrics` object, an SDK `MeterProvider`, a test double). Imports nothing.
 */

/** Attributes of a measurement (OpenTelemetry's `Attributes`, restricted to scalar values). */
export type MetricAttributes = Readonly<Record<string, string | number | boolean>>;

/** Options of an instrument (OpenTelemetry's `MetricOptions`). */
export interface InstrumentOptions {
  readonly description?: string;
  /** UCUM unit: `s`, or an annotation such as `{update}`. */
  readonly unit?: string;
  /** Hints to the SDK; a View of the application overrides them. */
  readonly advice?: { readonly explicitBucketBoundaries?: number[] };
}

/** A synchronous histogram (OpenTelemetry's `Histogram`). */
export interface HistogramLike {
  record(value: number, attributes?: MetricAttributes): void;
}

/** A synchronous monotonic counter (OpenTelemetry's `Counter`). */
export interface CounterLike {
  add(value: number, attributes?: MetricAttributes): void;
}

/** What an observable instrument's callback reports through (OpenTelemetry's `ObservableResult`). */
export interface ObservableResultLike {
  observe(value: number, attributes?: MetricAttributes): void;
}

/** An asynchronous instrument (OpenTelemetry's `Observable`): observed at each collection. */
export interface ObservableLike {
  addCallback(callback: (result: ObservableResultLike) => void): void;
  removeCallback(callback: (result: ObservableResultLike) => void): void;
}

/** What a batch callback reports through (OpenTelemetry's `BatchObservableResult`). */
export interface BatchObservableResultLike {
  observe(instrument: ObservableLike, value: number, attributes?: MetricAttributes): void;
}

/** A batch observable callback (OpenTelemetry's `BatchObservableCallback`). */
export type BatchCallback = (result: BatchObservableResultLike) => void;

/** A meter (OpenTelemetry's `Meter`): the instruments the client creates. */
export interface MeterLike {
  createHistogram(name: string, options?: InstrumentOptions): HistogramLike;
  createCounter(name: string, options?: InstrumentOptions): CounterLike;
  createObservableCounter(name: string, options?: InstrumentOptions): ObservableLike;
  createObservableUpDownCounter(name: string, options?: InstrumentOptions): ObservableLike;
  addBatchObservableCallback(callback: BatchCallback, observables: ObservableLike[]): void;
  removeBatchObservableCallback(callback: BatchCallback, observables: ObservableLike[]): void;
}

/**
 * Where the client gets its meter (OpenTelemetry's `MeterProvider`): it calls
 * `getMeter('exchange-replica')` once per client.
 *
 * @example
 * import { metrics } from '@opentelemetry/api';
 * new ExchangeClient({ restUrl, meterProvider: metrics }); // the application's global provider
 * @example
 * import { MeterProvider } from '@opentelemetry/sdk-metrics';
 * new ExchangeClient({ restUrl, meterProvider: new MeterProvider({ readers: [reader] }) });
 */
export interface MeterProviderLike {
  getMeter(name: string, version?: string): MeterLike;
}
