/**
 * One moment of the live view, gathered once per draw: the view model plus what the client
 * and the fault picker report. Both renderers (screen and one-line) read only this. @internal
 */
import type { ExchangeClient } from '../../client';
import type { LatencyPercentiles } from '../../metrics';
import type { InjectedFault } from './FaultPicker';
import type { ViewModel } from './ViewModel';

export interface ViewFrame {
  readonly vm: ViewModel;
  /** Where the data comes from. */
  readonly label: string;
  readonly elapsedMs: number;
  /** Server -> replica latency, worst stream's p50 and p99 (microseconds), from `client.streamMetrics()`. */
  readonly feed: { readonly p50: number; readonly p99: number; readonly streams: number };
  /** Server -> draw latency and rates. */
  readonly render: { readonly latency: LatencyPercentiles; readonly framesPerSecond: number; readonly drawsPerSecond: number; readonly updatesPerSecond: number };
  /** Server -> view model latency (every stream the view shows), the one that the one-line output reports. */
  readonly modelLatency: LatencyPercentiles;
  /** Resyncs by trigger (non-zero ones) and their total. */
  readonly resyncs: { readonly total: number; readonly byTrigger: Readonly<Record<string, number>> };
  /** Whether `f` injects faults (only with the embedded simulator). */
  readonly faultsEnabled: boolean;
  readonly lastFault: InjectedFault | undefined;
}

/** Gathers a frame (call right before drawing). */
export function gatherFrame(vm: ViewModel, client: ExchangeClient, label: string, startedMs: number, faultsEnabled: boolean, lastFault: InjectedFault | undefined): ViewFrame {
  let p50 = 0;
  let p99 = 0;
  const metrics = client.streamMetrics();
  for (const s of metrics) {
    p50 = Math.max(p50, s.latency.p50);
    p99 = Math.max(p99, s.latency.p99);
  }
  const counts = client.resyncCounts();
  const byTrigger: Record<string, number> = {};
  let total = 0;
  for (const [k, v] of Object.entries(counts)) {
    if (v > 0) byTrigger[k] = v;
    total += v;
  }
  const s = vm.metrics.summary();
  return {
    vm,
    label,
    elapsedMs: Date.now() - startedMs,
    feed: { p50, p99, streams: metrics.length },
    render: { latency: s.latency, framesPerSecond: s.framesPerSecond, drawsPerSecond: s.drawsPerSecond, updatesPerSecond: s.updatesPerSecond },
    modelLatency: s.modelLatency,
    resyncs: { total, byTrigger },
    faultsEnabled,
    lastFault,
  };
}

/** Microseconds as milliseconds with one decimal, e.g. 1234 -> "1.2ms". */
export function ms(us: number): string {
  return `${(us / 1000).toFixed(1)}ms`;
}
