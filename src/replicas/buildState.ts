/**
 * Building a replica state that is not shown yet: a fresh state from a snapshot, with the
 * buffered updates above its sequence folded in. Written once for every reducer.
 */
import type { ErrorContext } from '../errors';
import type { Scope } from '../protocol';
import type { Reducer } from './Reducer';
import { SnapshotBehindError } from './SnapshotError';
import type { LoadedSnapshot } from './SnapshotFetcher';
import type { BufferedUpdate } from './UpdateBuffer';

/** A state and the position in the stream it includes. */
export interface BuiltState<S> {
  readonly state: S;
  /** The sequence S of the snapshot the state was built from. */
  readonly snapshotSequence: bigint;
  readonly seq: bigint;
  readonly timestampNs: bigint;
  readonly receivedAtNs: bigint;
  /** The snapshot the state was built from (for the `onApplied` hook). */
  readonly snapshot?: LoadedSnapshot;
  /** The updates folded onto the snapshot, in order: kept only when asked (`onApplied`), else undefined. */
  readonly folded?: readonly BufferedUpdate[];
}

/**
 * Folds the updates above `built.seq`, in order, each exactly the next seq. `built` is not
 * shown yet: with the states the updates make from it, it is shown as one (`reducer.join`).
 * @throws SnapshotBehindError at a hole (an update missing); whatever `reducer.apply` throws.
 */
export function foldUpdates<S>(reducer: Reducer<S>, built: BuiltState<S>, updates: readonly BufferedUpdate[], context: ErrorContext): BuiltState<S> {
  let { state, seq, timestampNs, receivedAtNs } = built;
  const { snapshotSequence, snapshot } = built;
  // Kept for the applied hook only (a copy: `built` may serve another fold).
  const applied: BufferedUpdate[] | undefined = built.folded ? [...built.folded] : undefined;
  // Every state of the fold, for a reducer that joins them (none of them is shown).
  const folded: S[] | undefined = reducer.join ? [state] : undefined;
  for (const u of updates) {
    if (u.seq <= seq) continue; // already included
    if (u.seq !== seq + 1n) throw new SnapshotBehindError(seq, u.seq, context);
    state = reducer.apply(state, u.data, u.seq);
    folded?.push(state);
    applied?.push(u);
    ({ seq, timestampNs, receivedAtNs } = u);
  }
  if (folded !== undefined && folded.length > 1 && reducer.join) state = reducer.join(folded);
  return { state, snapshotSequence, seq, timestampNs, receivedAtNs, snapshot, folded: applied };
}

/**
 * A NEW state from `loaded` (its sequence S), with the buffered updates `seq > S` folded in.
 * `previous` (the state shown) is only read by the reducer, never changed. With `keepFolded`,
 * the result lists the updates folded (`folded`).
 * @throws SnapshotBehindError when the first buffered update above S is not S + 1;
 *   ReplicaIntegrityError when the reducer rejects the snapshot or an update.
 */
export function buildFromSnapshot<S>(
  reducer: Reducer<S>,
  loaded: LoadedSnapshot,
  scope: Scope,
  previous: S | undefined,
  buffered: readonly BufferedUpdate[],
  receivedAtNs: bigint,
  context: ErrorContext,
  keepFolded = false,
): BuiltState<S> {
  const S = loaded.sequence;
  let first: bigint | undefined;
  for (const u of buffered) if (u.seq > S && (first === undefined || u.seq < first)) first = u.seq;
  if (first !== undefined && first !== S + 1n) throw new SnapshotBehindError(S, first, context);
  const fresh = reducer.fromSnapshot(loaded.data, scope, previous);
  return foldUpdates(reducer, { state: fresh, snapshotSequence: S, seq: S, timestampNs: loaded.timestampNs, receivedAtNs, snapshot: loaded, folded: keepFolded ? [] : undefined }, buffered, context);
}
