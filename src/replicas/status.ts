/**
 * The replica status state machine. Every status change goes through ONE `setState(next,
 * reason)` that checks the transition and emits `{from, to, reason}`.
 *
 * - `syncing`: no state yet, waiting for the first snapshot;
 * - `live`: the state follows the stream;
 * - `resyncing`: the state shown is the last good one, a fresh snapshot is on its way;
 * - `stale`: the stream is down (disconnected): the state shown is not being updated;
 * - `failed`: the subscription was refused or the snapshot cannot be had; terminal.
 */
import { Subject, type Observable } from 'rxjs';
import { ExchangeReplicaError } from '../errors';

export const REPLICA_STATUSES = ['syncing', 'live', 'resyncing', 'stale', 'failed'] as const;
export type ReplicaStatus = (typeof REPLICA_STATUSES)[number];

/** One status transition and why it happened. */
export interface StatusChange {
  readonly from: ReplicaStatus;
  readonly to: ReplicaStatus;
  readonly reason: string;
}

const TRANSITIONS: Readonly<Record<ReplicaStatus, readonly ReplicaStatus[]>> = {
  syncing: ['live', 'stale', 'failed'],
  live: ['resyncing', 'stale', 'failed'],
  resyncing: ['live', 'stale', 'failed'],
  stale: ['syncing', 'resyncing', 'failed'],
  failed: [],
};

/** True when `from -> to` is a legal transition. */
export function canTransition(from: ReplicaStatus, to: ReplicaStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** A status change the machine does not allow (a bug of the caller). */
export class InvalidTransitionError extends ExchangeReplicaError {
  constructor(from: ReplicaStatus, to: ReplicaStatus, reason: string) {
    super('ERR_ILLEGAL_STATE_TRANSITION', `replica status cannot go from ${from} to ${to} (${reason})`);
  }
}

/**
 * @example
 * const status = new ReplicaStatusMachine();
 * status.changes$.subscribe(({ from, to, reason }) => log(`${from} -> ${to}: ${reason}`));
 * status.setState('live', 'snapshot 4242 applied');
 */
export class ReplicaStatusMachine {
  private current: ReplicaStatus;
  private readonly subject = new Subject<StatusChange>();
  /** Every transition, in order (hot: no replay). */
  readonly changes$: Observable<StatusChange> = this.subject.asObservable();

  /** @param initial @default 'syncing' */
  constructor(initial: ReplicaStatus = 'syncing') {
    this.current = initial;
  }

  get status(): ReplicaStatus {
    return this.current;
  }

  /**
   * Moves to `next`. Setting the current status again changes nothing and emits nothing.
   * @returns true when the status changed.
   * @throws InvalidTransitionError when the transition is not allowed (e.g. out of `failed`).
   */
  setState(next: ReplicaStatus, reason: string): boolean {
    const from = this.current;
    if (next === from) return false;
    if (!canTransition(from, next)) throw new InvalidTransitionError(from, next, reason);
    this.current = next;
    this.subject.next({ from, to: next, reason });
    return true;
  }

  /** Ends `changes$`. */
  complete(): void {
    this.subject.complete();
  }
}
