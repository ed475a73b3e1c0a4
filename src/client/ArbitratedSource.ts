/**
 * One replica source made of several lines (sources of the same feed, e.g. two sockets to
 * the exchange): every subscription is made on every line, and each stream's events go
 * through a {@link LineArbiter}, so a replica sees one stream with each `seq` once, taken
 * from the line that brought it first. Snapshots come from the first line's source (REST
 * is shared). `StreamSync` and the reducers do not know there is more than one line.
 *
 * A line whose subscription ends with an error (a subscribe that timed out on that socket)
 * is subscribed again after `retryAfterMs` while the others carry the stream; the stream
 * ends with an error only when every line's did.
 */
import { RequestTimeoutError } from '../errors';
import { streamKey, type ChannelName, type Scope } from '../protocol';
import type { LoadedSnapshot, ReplicaSource, SnapshotQuery, SourceSink } from '../replicas';
import { LineArbiter, type ArbitrationCounts, type LineArbiterOptions } from './LineArbiter';

export interface ArbitratedSourceOptions extends LineArbiterOptions {
  /** Wait (ms) before subscribing a line again after its subscribe timed out. */
  readonly retryAfterMs: number;
}

export class ArbitratedSource implements ReplicaSource {
  /** Counts of every stream arbitrated so far (per line: won, late, holes filled; resyncs avoided). */
  readonly counts: ArbitrationCounts;

  constructor(
    private readonly lines: readonly ReplicaSource[],
    private readonly options: ArbitratedSourceOptions,
  ) {
    this.counts = { lines: lines.map(() => ({ won: 0, late: 0, gapsFilled: 0 })), resyncsAvoided: 0, gapsUnfilled: 0, streams: new Map() };
  }

  subscribe(channel: ChannelName, scope: Scope, listener: SourceSink): () => void {
    const key = streamKey(channel, scope);
    let stream = this.counts.streams.get(key);
    if (stream === undefined) this.counts.streams.set(key, (stream = { resyncsAvoided: 0, gapsUnfilled: 0 }));
    const arbiter = new LineArbiter(this.lines.length, listener, this.options, this.counts, stream);
    const stops: ((() => void) | undefined)[] = [];
    const timers: ({ cancel(): void } | undefined)[] = [];
    const failed = new Set<number>();
    let ended = false;
    const subscribeLine = (i: number): void => {
      const line = this.lines[i]!;
      const lineListener: SourceSink = {
        next: (event) => {
          if (!ended) arbiter.next(i, event);
        },
        error: (error) => {
          if (ended) return;
          stops[i] = undefined;
          arbiter.next(i, { kind: 'disconnected', reason: `line ${i + 1}: its subscription ended` });
          if (error instanceof RequestTimeoutError && failed.size < this.lines.length - 1) {
            timers[i] = this.options.clock.setTimer(() => !ended && subscribeLine(i), this.options.retryAfterMs, { unref: true });
            return;
          }
          failed.add(i);
          if (failed.size === this.lines.length) finish(() => listener.error(error));
        },
        complete: () => {
          if (ended) return;
          stops[i] = undefined;
          failed.add(i);
          if (failed.size === this.lines.length) finish(() => listener.complete());
        },
      };
      stops[i] = line.subscribe(channel, scope, lineListener);
    };
    const finish = (tell: () => void): void => {
      stop();
      tell();
    };
    const stop = (): void => {
      if (ended) return;
      ended = true;
      arbiter.close();
      for (const t of timers) t?.cancel();
      for (const s of stops) s?.();
    };
    for (let i = 0; i < this.lines.length; i++) subscribeLine(i);
    return stop;
  }

  snapshot(query: SnapshotQuery): Promise<LoadedSnapshot> {
    return this.lines[0]!.snapshot(query);
  }
}
