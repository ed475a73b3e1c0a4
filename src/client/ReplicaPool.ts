/**
 * Replicas shared by key: every subscriber of the same channel and scope reads the same
 * replica (one snapshot, one server subscription); it starts with the first subscriber and
 * closes with the last. A replica's own observables already multicast (state observables
 * replay only the latest emission: conflated, bounded memory), so the pool only counts
 * references. @internal
 */
import type { Observable } from 'rxjs';
import { GuardedObservable, type GuardSink } from './GuardedObservable';

/** Something running that must be closed when its last reader leaves. */
export interface Closeable {
  close(): void;
}

interface Entry {
  readonly value: Closeable;
  refs: number;
}

export class ReplicaPool {
  private readonly entries = new Map<string, Entry>();

  /** @param sink where a subscriber's exception goes (see GuardedObservable) */
  constructor(private readonly sink: GuardSink) {}

  /**
   * An observable that, while subscribed, holds a reference to the replica of `key`
   * (created by `create` on first use) and emits what `select` reads from it.
   */
  observe<R extends Closeable, T>(key: string, create: () => R, select: (replica: R) => Observable<T>): Observable<T> {
    return new GuardedObservable<T>(this.sink, (subscriber) => {
      const held = this.lease(key, create);
      const sub = select(held.value).subscribe(subscriber);
      return () => {
        sub.unsubscribe();
        held.release();
      };
    });
  }

  /**
   * The replica of `key` (created when missing), held until `release()`: for a replica that
   * uses another one of the pool as a part (one replica per stream, whoever reads it).
   */
  lease<R extends Closeable>(key: string, create: () => R): { readonly value: R; release(): void } {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { value: create(), refs: 0 };
      this.entries.set(key, entry);
    }
    entry.refs++;
    const held = entry;
    let released = false;
    return {
      value: held.value as R,
      release: () => {
        if (released) return;
        released = true;
        if (--held.refs === 0 && this.entries.get(key) === held) {
          this.entries.delete(key);
          held.value.close();
        }
      },
    };
  }

  /** Number of replicas running. */
  get size(): number {
    return this.entries.size;
  }

  /** Closes every replica (their observables complete). */
  closeAll(): void {
    const entries = [...this.entries.values()];
    this.entries.clear();
    for (const e of entries) e.value.close();
  }
}
