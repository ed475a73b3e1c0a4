/**
 * A real OpenTelemetry SDK MeterProvider whose reader collects on demand (no timer), and reads
 * of what a collection holds: the data points of the client's instruments by name, filtered
 * by attributes.
 */
import { DataPointType, MeterProvider, MetricReader, type CollectionResult, type MetricData } from '@opentelemetry/sdk-metrics';
import { METER_NAME } from '../../src/metrics';

/** Collects only when asked. */
export class CollectingReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export interface Sdk {
  readonly provider: MeterProvider;
  collect(): Promise<Collected>;
}

export function startSdk(): Sdk {
  const reader = new CollectingReader();
  const provider = new MeterProvider({ readers: [reader] });
  return { provider, collect: async () => new Collected(await reader.collect()) };
}

type Attributes = Readonly<Record<string, unknown>>;

function matches(attributes: Attributes, want: Attributes): boolean {
  return Object.entries(want).every(([k, v]) => attributes[k] === v);
}

/** One collection, read by instrument name. */
export class Collected {
  readonly metrics: readonly MetricData[];

  constructor(readonly result: CollectionResult) {
    if (result.errors.length > 0) throw new Error(`collection errors: ${result.errors.map(String).join('; ')}`);
    this.metrics = result.resourceMetrics.scopeMetrics.filter((s) => s.scope.name === METER_NAME).flatMap((s) => s.metrics);
  }

  /** The instrument of `name` (throws when the collection has none). */
  metric(name: string): MetricData {
    const m = this.metrics.find((x) => x.descriptor.name === name);
    if (!m) throw new Error(`no ${name} in the collection (has ${this.metrics.map((x) => x.descriptor.name).join(', ')})`);
    return m;
  }

  names(): string[] {
    return this.metrics.map((m) => m.descriptor.name).sort();
  }

  /** The points of a sum (counter, up-down counter) whose attributes include `want`, as attributes and value. */
  sums(name: string, want: Attributes = {}): { attributes: Attributes; value: number }[] {
    const m = this.metric(name);
    if (m.dataPointType !== DataPointType.SUM) throw new Error(`${name} is not a sum`);
    return m.dataPoints.filter((p) => matches(p.attributes, want)).map((p) => ({ attributes: p.attributes, value: p.value }));
  }

  /** The sum of the values of the points of `name` whose attributes include `want` (0 when none). */
  total(name: string, want: Attributes = {}): number {
    return this.metrics.some((m) => m.descriptor.name === name) ? this.sums(name, want).reduce((n, p) => n + p.value, 0) : 0;
  }

  /** Histogram points of `name` whose attributes include `want`: count, sum, min, max. */
  histograms(name: string, want: Attributes = {}): { attributes: Attributes; count: number; sum: number; min: number; max: number }[] {
    const m = this.metric(name);
    if (m.dataPointType !== DataPointType.HISTOGRAM) throw new Error(`${name} is not a histogram`);
    return m.dataPoints.filter((p) => matches(p.attributes, want)).map((p) => ({ attributes: p.attributes, count: p.value.count, sum: p.value.sum ?? 0, min: p.value.min ?? 0, max: p.value.max ?? 0 }));
  }

  /** Samples counted by the histogram points of `name` whose attributes include `want`. */
  histogramCount(name: string, want: Attributes = {}): number {
    return this.histograms(name, want).reduce((n, p) => n + p.count, 0);
  }
}
