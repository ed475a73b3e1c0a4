/**
 * A model exchange for the model-based test of event replicas (EventReplica.model.test.ts),
 * the event counterpart of syncModel.ts: the exchange produces updates carrying 1-3 trades
 * each, with strictly increasing record `sequence`s (steps of 1 or 2: the sequences need not
 * be contiguous), some of them big (a price with hundreds of leading zeros, which a Uint64
 * string may carry); its stream numbering (the update `seq`) may restart while the records go
 * on; its REST history is paged newest-first by a keyset `next_cursor` (the sequence of the
 * last row served) and answered from the record log as of the answer's point.
 *
 * `logs[e][n]` is how many records the exchange had produced at seq n of numbering e (n = 0
 * is where the numbering began): the truth at any point is a prefix of `records`.
 */
import type { Trade } from '../../src/protocol';
import { estimateBytes } from '../../src/replicas/estimateBytes';
import type { SnapshotPage } from '../../src/replicas/SnapshotFetcher';
import { FakeFetcher, trade } from './fixtures';

/**
 * A FakeFetcher whose calls each listen to their own signal: every page of a walk shares the
 * walk's signal, and FakeFetcher's listener on it stays until it aborts (a walk of more than
 * ten pages would print Node's MaxListenersExceededWarning). The listener on the walk's
 * signal is removed once the page is answered.
 */
export class PagingFetcher extends FakeFetcher {
  constructor() {
    super();
    const perCall = this.fetch;
    (this as { fetch: FakeFetcher['fetch'] }).fetch = (operation, params, signal) => {
      const own = new AbortController();
      const abort = () => own.abort(signal.reason);
      if (signal.aborted) abort();
      else signal.addEventListener('abort', abort, { once: true });
      const answer = perCall(operation, params, own.signal);
      const done = () => signal.removeEventListener('abort', abort);
      void answer.then(done, done);
      return answer;
    };
  }
}

/** Leading zeros of a big trade's price. */
const BIG_PAD = 400;

/** What the socket has on its way to the replica. */
export type EventDelivery =
  | { readonly kind: 'update'; readonly epoch: number; readonly seq: number; readonly trades: readonly Trade[] }
  | { readonly kind: 'resync_required'; readonly reason: 'gap' | 'invalid_update' };

/** A request the replica made (one page of a history walk), with where the exchange stood when it was sent. */
export interface HistoryRequest {
  readonly index: number;
  /** The page asked for: undefined for the newest (the snapshot's first page), else the keyset cursor. */
  readonly cursor: string | undefined;
  /** The exchange's numbering and head when the request was sent. */
  readonly epoch: number;
  readonly head: number;
  /** The numbering the stream had shown the replica when the request was sent. */
  readonly shownEpoch: number;
}

export class EventExchange {
  /** Every record produced, in sequence order. */
  readonly records: Trade[] = [];
  readonly bySequence = new Map<bigint, Trade>();
  /** `logs[e][n]`: records produced as of seq n of numbering e. */
  readonly logs: number[][] = [[0]];
  queue: EventDelivery[] = [];
  /** The numbering of the last update delivered (or the exchange's at the last subscribe). */
  shownEpoch = 0;
  /** Highest head (in `shownEpoch`) the replica must reach after a `resync_required`, while answers are faithful. */
  mustReach = 0;
  /** Highest seq delivered on this subscription in `shownEpoch`: a live replica is not behind it, while answers are faithful. */
  received = 0;
  /** Snapshot answers may be any point of the numbering shown, older than the request too. */
  lying = false;
  /** The last update produced in this numbering reaches the replica (a restart now shows as a regression). */
  restartable = false;
  /**
   * The numbering restarted and none of its updates was produced yet: skipping its first one
   * would hide the restart, which no client can see: silently, the old numbering's last
   * update then the new one's second look like one numbering going on; said (a gap), the
   * snapshot asked for may still be the old numbering's last point (the stream shows no
   * other), and the new one's second update follows it.
   */
  freshNumbering = false;
  /** A snapshot answer older than its request was given: the floor above is not owed. */
  staleAnswered = false;
  readonly requests: HistoryRequest[] = [];
  /** The last update the socket delivered (a `repeat` delivers it again). */
  lastDelivered?: EventDelivery & { kind: 'update' };
  private nextSequence = 1n;

  constructor(
    /** Rows of one history page. */
    readonly pageSize: number,
  ) {}

  get epoch(): number {
    return this.logs.length - 1;
  }

  get head(): number {
    return this.logs[this.epoch]!.length - 1;
  }

  /**
   * The exchange applies one more update of `steps.length` trades, each `steps[i]` above the
   * one before (1 or 2; 3 and 4 are 1 and 2 for a big trade); returns it (not queued).
   */
  produce(steps: readonly number[]): EventDelivery & { kind: 'update' } {
    const trades: Trade[] = [];
    for (const step of steps) {
      this.nextSequence += BigInt(((step - 1) % 2));
      const t = step > 2 ? { ...trade(this.nextSequence++), price_ticks: `${'0'.repeat(BIG_PAD)}100` } : trade(this.nextSequence++);
      this.records.push(t);
      this.bySequence.set(BigInt(t.sequence), t);
      trades.push(t);
    }
    const log = this.logs[this.epoch]!;
    log.push(this.records.length);
    this.freshNumbering = false;
    return { kind: 'update', epoch: this.epoch, seq: log.length - 1, trades };
  }

  /** The numbering restarts at 0 where the records stand (the records go on). */
  restart(): void {
    this.logs.push([this.records.length]);
    this.freshNumbering = true;
  }

  /** Records produced as of (epoch, seq); undefined for a point that never was. */
  countAt(epoch: number, seq: bigint): number | undefined {
    const log = this.logs[epoch];
    return log === undefined || seq < 0n || seq >= BigInt(log.length) ? undefined : log[Number(seq)];
  }

  /**
   * The newest records as of (epoch, seq), oldest first: at most `limit`, and no more than fit
   * in `maxBytes` (each at its estimated size) except the newest, which always does.
   */
  recentAt(epoch: number, seq: bigint, limit: number, maxBytes: number): readonly Trade[] | undefined {
    const count = this.countAt(epoch, seq);
    if (count === undefined) return undefined;
    let start = count;
    for (let bytes = 0; start > Math.max(0, count - limit); start--) {
      bytes += estimateBytes(this.records[start - 1]);
      if (start < count && bytes > maxBytes) break;
    }
    return this.records.slice(start, count);
  }

  /** The first page of the history as of (epoch, seq): the newest records, newest first, with the stream seq. */
  firstPage(epoch: number, seq: number): SnapshotPage {
    return { ...this.pageEnding(this.logs[epoch]![seq]!), sequence: String(seq), timestamp_ns: '1' };
  }

  /** A later page of a walk: the records below `cursor` (records only append: any later point answers the same). */
  pageBelow(cursor: string): SnapshotPage {
    const below = BigInt(cursor);
    let end = 0;
    while (end < this.records.length && BigInt(this.records[end]!.sequence) < below) end++;
    // Page 2 on carries the stream seq of no point in particular: loadEventHistory reads the first page's only.
    return { ...this.pageEnding(end), sequence: '0', timestamp_ns: '1' };
  }

  /** The page of the `pageSize` records before index `end`, newest first. */
  private pageEnding(end: number): Pick<SnapshotPage, 'data' | 'next_cursor'> {
    const start = Math.max(0, end - this.pageSize);
    const rows = this.records.slice(start, end).reverse();
    return { data: rows, next_cursor: start > 0 ? rows[rows.length - 1]!.sequence : null };
  }
}
