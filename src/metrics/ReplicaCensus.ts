/**
 * The replicas a client runs, by stream key: what `client.resyncCounts()` sums (the replicas
 * running now), and, for the client's OpenTelemetry instruments, resyncs per stream that never
 * go down (a closed replica's counts are kept when a watcher is given) and replicas per channel
 * and status. A replica enters with `track()` and leaves with its entry's `close()`.
 */
import type { Observable, Unsubscribable } from 'rxjs';
import { REPLICA_STATUSES, type ReplicaStatus } from '../replicas/ReplicaStatus';
import type { EmissionCause } from '../replicas/ReplicaState';
import { RESYNC_TRIGGERS, emptyResyncCounts, type ResyncTrigger } from '../replicas/streamSyncOptions';
import { channelOfStream } from './metricInstruments';

/** Something whose resyncs are counted. */
export interface CountedResyncs {
  readonly resyncCounts: Readonly<Record<ResyncTrigger, number>>;
}

/** What a replica emission tells about its timing (`ReplicaState`, `AccountReplicaState`). */
export interface TimedEmission {
  readonly cause: EmissionCause;
  /** Server time (ns) of what the emission applied. */
  readonly timestampNs: bigint;
}

/** A running replica as the census sees it (`StreamSync`, `EventReplica`, `AccountReplica`). */
export interface TrackedReplica extends CountedResyncs {
  readonly status: ReplicaStatus;
  readonly states$: Observable<TimedEmission>;
  close(): void;
}

/** Told of the census and of each replica entering it (the client's telemetry). */
export interface ReplicaWatcher {
  /** The census the watcher reads (at each metrics collection). */
  attach(census: ReplicaCensus): void;
  /** A replica entered: watch it until the returned subscription ends (it leaves). */
  watch(stream: string, replica: TrackedReplica): Unsubscribable;
}

interface Entry {
  readonly stream: string;
  readonly replica: TrackedReplica;
  readonly counted: CountedResyncs;
  readonly watching?: Unsubscribable;
}

/**
 * @example
 * const census = new ReplicaCensus();
 * const entry = census.track(sync.key, sync); // entry.close() closes the replica and forgets it
 * census.resyncCounts().seq_jump;
 */
export class ReplicaCensus {
  private readonly running = new Set<Entry>();
  /** Resyncs of the replicas that left, by stream (with a watcher only). */
  private readonly retired = new Map<string, Record<ResyncTrigger, number>>();
  /** Channels that ever had a replica (with a watcher only): their series stay, at 0 when none runs. */
  private readonly channels = new Set<string>();

  /** @param watcher the client's telemetry, when it has one @default none (nothing kept past a replica's close) */
  constructor(private readonly watcher?: ReplicaWatcher) {
    watcher?.attach(this);
  }

  /**
   * Counts `replica` (its resyncs as `counted` says: a combined replica counts its own only)
   * until the returned entry's `close()`, which also closes the replica.
   */
  track<R extends TrackedReplica>(stream: string, replica: R, counted: CountedResyncs = replica): { readonly replica: R; close(): void } {
    const w = this.watcher;
    const entry: Entry = { stream, replica, counted, watching: w?.watch(stream, replica) };
    this.running.add(entry);
    if (w) this.channels.add(channelOfStream(stream));
    return {
      replica,
      close: () => {
        if (this.running.delete(entry)) this.leave(entry);
        replica.close();
      },
    };
  }

  /** Resyncs started by trigger, summed over the replicas running now. */
  resyncCounts(): Record<ResyncTrigger, number> {
    const total = emptyResyncCounts();
    for (const e of this.running) addCounts(total, e.counted.resyncCounts);
    return total;
  }

  /** Resyncs per stream and trigger since the census began (with a watcher; running replicas only without), the non-zero ones. */
  forEachResyncCount(visit: (stream: string, reason: ResyncTrigger, count: number) => void): void {
    const byStream = new Map<string, Record<ResyncTrigger, number>>();
    for (const [stream, counts] of this.retired) byStream.set(stream, { ...counts });
    for (const e of this.running) addCounts(countsOf(byStream, e.stream), e.counted.resyncCounts);
    for (const [stream, counts] of byStream) for (const t of RESYNC_TRIGGERS) if (counts[t] > 0) visit(stream, t, counts[t]);
  }

  /** Replicas running per channel and status: every status of every channel seen (0 included). */
  forEachStatusCount(visit: (channel: string, status: ReplicaStatus, count: number) => void): void {
    const counts = new Map<string, Record<ReplicaStatus, number>>();
    const zero = (): Record<ReplicaStatus, number> => ({ syncing: 0, live: 0, resyncing: 0, stale: 0, failed: 0 });
    for (const channel of this.channels) counts.set(channel, zero());
    for (const e of this.running) {
      const channel = channelOfStream(e.stream);
      let c = counts.get(channel);
      if (c === undefined) counts.set(channel, (c = zero()));
      c[e.replica.status]++;
    }
    for (const [channel, c] of counts) for (const s of REPLICA_STATUSES) visit(channel, s, c[s]);
  }

  private leave(entry: Entry): void {
    entry.watching?.unsubscribe();
    if (this.watcher) addCounts(countsOf(this.retired, entry.stream), entry.counted.resyncCounts);
  }
}

function countsOf(map: Map<string, Record<ResyncTrigger, number>>, stream: string): Record<ResyncTrigger, number> {
  let c = map.get(stream);
  if (c === undefined) map.set(stream, (c = emptyResyncCounts()));
  return c;
}

function addCounts(into: Record<ResyncTrigger, number>, counts: Readonly<Record<ResyncTrigger, number>>): void {
  for (const t of RESYNC_TRIGGERS) into[t] += counts[t];
}
