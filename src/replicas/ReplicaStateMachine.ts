/**
 * The replica state machine: ONE internal state per replica, from which the public status
 * is derived by a pure function (`statusOf`). Every move goes through ONE
 * `moveTo(next, code, reason)` that checks it against the transition table and emits
 * `{from, to, code, reason}` when the public status changes.
 *
 * Public statuses:
 * - `syncing`: no state yet, waiting for the first snapshot;
 * - `live`: the state follows the stream;
 * - `resyncing`: the state shown is the last good one, a fresh snapshot is on its way;
 * - `stale`: the stream is down (disconnected): the state shown is not being updated;
 * - `failed`: the subscription was refused or the snapshot cannot be had; terminal.
 *
 * Internal states (status in brackets):
 * - `idle` [syncing]: not subscribed and no state: before the first `subscribed`, or waiting
 *   to subscribe again after a subscribe that timed out;
 * - `syncing` [syncing]: updates are buffered, the first snapshot is on its way;
 * - `syncing_ahead` [syncing]: a first state is built from a snapshot ahead of the stream and
 *   waits (at most `snapshotAheadMs`) for the stream to reach it;
 * - `live` [live]: each update must be the previous `seq` + 1;
 * - `live_unconfirmed` [live]: shown from a snapshot no update has reached yet (a quiet
 *   stream): the first update at or above its sequence confirms it, one below it shows the
 *   stream is behind (`resyncing_ahead`);
 * - `resyncing` [resyncing]: the old state is shown, updates are buffered, a snapshot is on its way;
 * - `resyncing_ahead` [resyncing]: the old state is shown, a new one waits for the stream to reach it;
 * - `stale` [stale]: not subscribed (disconnected, stream ended, subscribe timed out with a state);
 * - `failed` [failed]: terminal.
 *
 * Re-entering the current state (a new trigger while resyncing) is allowed, except `failed`:
 * it restarts that state's work and emits nothing.
 */
import { Subject, type Observable } from 'rxjs';
import { InvalidTransitionError } from './InvalidTransitionError';
import type { ReplicaStatus, StatusChange } from './ReplicaStatus';
import type { ReplicaTransitionCode } from './statusCodes';

export const SYNC_STATES = ['idle', 'syncing', 'syncing_ahead', 'live', 'live_unconfirmed', 'resyncing', 'resyncing_ahead', 'stale', 'failed'] as const;
/** The internal state of a replica (see the module comment). */
export type SyncState = (typeof SYNC_STATES)[number];

const STATUS_OF: Readonly<Record<SyncState, ReplicaStatus>> = {
  idle: 'syncing',
  syncing: 'syncing',
  syncing_ahead: 'syncing',
  live: 'live',
  live_unconfirmed: 'live',
  resyncing: 'resyncing',
  resyncing_ahead: 'resyncing',
  stale: 'stale',
  failed: 'failed',
};

/** Legal moves (besides re-entering the current state). */
const TRANSITIONS: Readonly<Record<SyncState, readonly SyncState[]>> = {
  idle: ['syncing', 'stale', 'failed'],
  syncing: ['syncing_ahead', 'live', 'live_unconfirmed', 'idle', 'stale', 'failed'],
  syncing_ahead: ['syncing', 'live', 'idle', 'stale', 'failed'],
  live: ['resyncing', 'stale', 'failed'],
  live_unconfirmed: ['live', 'resyncing', 'resyncing_ahead', 'stale', 'failed'],
  resyncing: ['resyncing_ahead', 'live', 'live_unconfirmed', 'stale', 'failed'],
  resyncing_ahead: ['resyncing', 'live', 'stale', 'failed'],
  stale: ['syncing', 'resyncing', 'failed'],
  failed: [],
};

/** The public status of an internal state. */
export function statusOf(state: SyncState): ReplicaStatus {
  return STATUS_OF[state];
}

/** True when the internal move `from -> to` is legal. */
export function canMove(from: SyncState, to: SyncState): boolean {
  return from === to ? from !== 'failed' : TRANSITIONS[from].includes(to);
}

/**
 * @example
 * const machine = new ReplicaStateMachine();
 * machine.changes$.subscribe(({ from, to, code }) => log(`${from} -> ${to}: ${code}`));
 * machine.moveTo('syncing', 'subscribed', 'subscription s1');
 * machine.moveTo('live', 'snapshot_applied', 'snapshot 4242 applied');
 */
export class ReplicaStateMachine {
  private current: SyncState;
  private lastCode: ReplicaTransitionCode = 'subscribed';
  private readonly subject = new Subject<StatusChange>();
  /** Every public status change, in order (hot: no replay). */
  readonly changes$: Observable<StatusChange> = this.subject.asObservable();

  /** @param initial @default 'idle' */
  constructor(initial: SyncState = 'idle') {
    this.current = initial;
  }

  get state(): SyncState {
    return this.current;
  }

  get status(): ReplicaStatus {
    return statusOf(this.current);
  }

  /** The code of the transition that set the current public status. */
  get code(): ReplicaTransitionCode {
    return this.lastCode;
  }

  /**
   * Moves to `next`; emits on `changes$` when the public status changed.
   * @returns true when the public status changed.
   * @throws InvalidTransitionError when the move is not allowed (e.g. out of `failed`).
   */
  moveTo(next: SyncState, code: ReplicaTransitionCode, reason: string): boolean {
    const from = this.current;
    if (!canMove(from, next)) throw new InvalidTransitionError(from, next, code, reason);
    this.current = next;
    const before = statusOf(from);
    const after = statusOf(next);
    if (before === after) return false;
    this.lastCode = code;
    this.subject.next({ from: before, to: after, code, reason });
    return true;
  }

  /** Ends `changes$`. */
  complete(): void {
    this.subject.complete();
  }
}
