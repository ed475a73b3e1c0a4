/**
 * The feed lines of a client: one socket (`Connection`) and one `SubscriptionRouter` per
 * feed URL. One line is the plain client; with two or more, the replicas read an
 * `ArbitratedSource` over them (each subscription made on every line, each `seq` taken from
 * the first line that brings it), and each line reconnects on its own while the others
 * carry the replicas.
 */
import { Connection, type ConnectionOptions } from '../connection';
import type { ReplicaSource } from '../replicas';
import type { RestClient } from '../rest';
import { SubscriptionRouter, type RouterOptions } from '../router';
import { ArbitratedSource } from './ArbitratedSource';
import type { ResolvedClientOptions } from './clientOptions';
import { ExchangeSource } from './ExchangeSource';
import type { ArbitrationCounts } from './LineArbiter';

/** One line of the feed. */
export interface FeedLine {
  readonly url: string;
  readonly connection: Connection;
  readonly router: SubscriptionRouter;
}

/** What each line is doing, and what arbitration spared the replicas. */
export interface LineStats {
  readonly lines: readonly {
    readonly url: string;
    /** The line's connection state (`open`, `reconnecting`, ...). */
    readonly state: Connection['state'];
    /** Updates this line brought first. */
    readonly won: number;
    /** Updates this line brought after another line did. */
    readonly late: number;
    /** Holes this line had that another line filled. */
    readonly gapsFilled: number;
  }[];
  /** Holes and `resync_required` of one line that cost the replicas no resync. */
  readonly resyncsAvoided: number;
  /** Holes no line filled within `arbitration.gapWindowMs` (the replica resynced). */
  readonly gapsUnfilled: number;
  /** The same two counts per stream key (streams arbitrated so far). */
  readonly streams: readonly { readonly key: string; readonly resyncsAvoided: number; readonly gapsUnfilled: number }[];
}

export class FeedLines {
  readonly lines: readonly FeedLine[];
  /** Where the replicas read from (the exchange over these lines), unless the client was given a source. */
  readonly source: ReplicaSource;
  private readonly arbitrated?: ArbitratedSource;

  constructor(
    options: ResolvedClientOptions,
    connection: Omit<ConnectionOptions, 'url'>,
    router: Omit<RouterOptions, 'onDrift'> & Pick<RouterOptions, 'onDrift'>,
    rest: RestClient,
  ) {
    this.lines = options.wsUrls.map((url) => {
      const c = new Connection({ ...connection, url });
      return { url, connection: c, router: new SubscriptionRouter(c, router) };
    });
    if (this.lines.length === 1) {
      this.source = new ExchangeSource(this.lines[0]!.router, rest);
    } else {
      this.arbitrated = new ArbitratedSource(
        this.lines.map((l) => new ExchangeSource(l.router, rest)),
        { ...options.arbitration, clock: options.replica.clock ?? options.clock, retryAfterMs: options.replica.retryAfterMs ?? 5000 },
      );
      this.source = this.arbitrated;
    }
  }

  /** Per line: state, updates won and late, holes filled by another line; resyncs avoided. */
  stats(): LineStats {
    const counts: ArbitrationCounts | undefined = this.arbitrated?.counts;
    return {
      lines: this.lines.map((l, i) => ({ url: l.url, state: l.connection.state, won: counts?.lines[i]?.won ?? 0, late: counts?.lines[i]?.late ?? 0, gapsFilled: counts?.lines[i]?.gapsFilled ?? 0 })),
      resyncsAvoided: counts?.resyncsAvoided ?? 0,
      gapsUnfilled: counts?.gapsUnfilled ?? 0,
      streams: counts === undefined ? [] : [...counts.streams].map(([key, c]) => ({ key, ...c })),
    };
  }

  close(): void {
    for (const l of this.lines) {
      l.router.close();
      l.connection.close();
    }
  }
}
