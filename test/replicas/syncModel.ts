/**
 * A model exchange for the model-based tests of StreamSync: a log of states per numbering
 * (epoch), a socket that delivers what the exchange produced in order and with lag, and
 * snapshot requests answered from the log. The replica under test runs a reducer that only
 * folds numbers (`hashReducer`), so a state built from a snapshot of one point plus updates
 * of another (another numbering, or across a hole) equals no point of the log.
 *
 * What the model lets the exchange do, at any step: produce updates, skip some and say so
 * (`resync_required`), skip some silently (a jump), send an update the router cannot decode
 * (it reaches the replica as `resync_required`), restart its numbering, repeat an update,
 * drop the socket (then resubscribe), and answer, fail or delay a snapshot request, the
 * answer taken behind or ahead of the stream, in the stream's numbering or, for a request
 * sent before a restart the stream showed, in either numbering.
 *
 * What it leaves out, because sequence numbers cannot tell it apart from a legitimate
 * answer: a snapshot in a numbering the stream has not shown when the request was made
 * (the README's reliability section names these windows).
 */
import type { Reducer } from '../../src/replicas/Reducer';
import type { SnapshotPage } from '../../src/replicas/SnapshotFetcher';

/** The replica's state: a fold of the update values over the snapshot's. */
export interface HashState {
  readonly h: number;
}

export const mix = (h: number, v: number): number => (Math.imul(h, 31) + v + 7) | 0;

export const hashReducer: Reducer<HashState> = {
  channel: 'bbo',
  fromSnapshot: (data) => ({ h: (data as { h: number }).h }),
  apply: (state, data) => ({ h: mix(state.h, (data as { v: number }).v) }),
};

/** What the socket has on its way to the replica. */
export type Delivery =
  | { readonly kind: 'update'; readonly epoch: number; readonly seq: number; readonly v: number }
  | { readonly kind: 'resync_required'; readonly reason: 'gap' | 'invalid_update' };

/** A snapshot request the replica made, with where the exchange stood when it was sent. */
export interface Request {
  readonly index: number;
  /** The exchange's numbering and head when the request was sent. */
  readonly epoch: number;
  readonly head: number;
  /** The numbering the stream had shown the replica when the request was sent. */
  readonly shownEpoch: number;
}

export class ModelExchange {
  /** `logs[e][n]`: the state hash at seq n of numbering e (n = 0 is where the numbering began). */
  readonly logs: number[][] = [[0]];
  queue: Delivery[] = [];
  /** The numbering of the last update delivered (or the exchange's at the last subscribe). */
  shownEpoch = 0;
  /** Highest head (in `shownEpoch`) the replica must reach after a `resync_required`, while answers are faithful. */
  mustReach = 0;
  /** Snapshot answers may be any point of the numbering shown, older than the request too. */
  lying = false;
  /** The last update produced in this numbering reaches the replica (a restart now shows as a regression). */
  restartable = false;
  /** The numbering restarted and has produced nothing yet. */
  restartPending = false;
  /** A snapshot answer older than its request was given: the floor above is not owed. */
  staleAnswered = false;
  readonly requests: Request[] = [];
  /** The last update the socket delivered (a `repeat` delivers it again). */
  lastDelivered?: Delivery & { kind: 'update' };
  private nextValue = 1;

  get epoch(): number {
    return this.logs.length - 1;
  }

  get head(): number {
    return this.logs[this.epoch]!.length - 1;
  }

  /** The exchange applies one more update; returns it (not queued). */
  produce(): Delivery & { kind: 'update' } {
    const log = this.logs[this.epoch]!;
    const v = this.nextValue++;
    log.push(mix(log[log.length - 1]!, v));
    return { kind: 'update', epoch: this.epoch, seq: log.length - 1, v };
  }

  /** The numbering restarts at 0 where the state stands (the state goes on). */
  restart(): void {
    const log = this.logs[this.epoch]!;
    this.logs.push([log[log.length - 1]!]);
  }

  truth(epoch: number, seq: bigint): number | undefined {
    const log = this.logs[epoch];
    return log === undefined || seq < 0n || seq >= BigInt(log.length) ? undefined : log[Number(seq)];
  }

  /** A snapshot page of point (epoch, seq). */
  page(epoch: number, seq: number): SnapshotPage {
    return { data: { h: this.logs[epoch]![seq]! }, sequence: String(seq), timestamp_ns: '1' };
  }
}

/** What {@link answerPoint} reads of a model exchange (the StreamSync, event and account models'). */
export interface NumberedLogs {
  readonly logs: readonly (readonly unknown[])[];
  readonly shownEpoch: number;
  readonly lying?: boolean;
}

/**
 * The point (numbering, seq) a snapshot request is answered at, the one rule of the models.
 * Faithfully: a point the exchange reached after the request was sent, in the numbering the
 * stream shows, behind or ahead of the stream (sent after a restart the stream does not show
 * yet: the point just before it, one from the new numbering could not be told from it); for a
 * request the stream has since shown a restart for, either numbering (`otherNumbering`). A
 * lying exchange answers any point of the numbering shown. `pick` chooses within the range.
 */
export function answerPoint(m: NumberedLogs, q: Pick<Request, 'epoch' | 'head' | 'shownEpoch'>, pick: number, otherNumbering: boolean): { readonly epoch: number; readonly seq: number } {
  let epoch = m.shownEpoch;
  let lo = 0;
  if (q.shownEpoch !== m.shownEpoch && otherNumbering) {
    epoch = q.shownEpoch;
    lo = q.epoch === epoch ? q.head : m.logs[epoch]!.length - 1;
  } else if (q.shownEpoch === m.shownEpoch) {
    lo = q.epoch === epoch ? q.head : m.logs[epoch]!.length - 1;
  }
  if (m.lying === true) lo = 0;
  const len = m.logs[epoch]!.length;
  return { epoch, seq: lo + (pick % (len - lo)) };
}
