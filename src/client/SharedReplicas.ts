/**
 * Replicas shared by key: every subscriber of the same channel and scope reads the same
 * replica; it starts with the first subscriber and closes with the last. State observables
 * replay the latest emission to late subscribers (conflated: one value, bounded memory);
 * event observables do not replay. @internal
 */
import { Observable, ReplaySubject, Subject, share } from 'rxjs';

/** Something running that feeds an observable and must be closed. */
export interface Running<T> {
  readonly output: Observable<T>;
  close(): void;
}

export class SharedReplicas {
  private readonly shared = new Map<string, Observable<unknown>>();
  private readonly running = new Set<Running<unknown>>();

  /** The shared observable of `key`, created on first use. */
  get<T>(key: string, replay: boolean, create: () => Running<T>): Observable<T> {
    let obs = this.shared.get(key) as Observable<T> | undefined;
    if (!obs) {
      const source = new Observable<T>((subscriber) => {
        const r = create();
        this.running.add(r as Running<unknown>);
        const sub = r.output.subscribe(subscriber);
        return () => {
          sub.unsubscribe();
          r.close();
          this.running.delete(r as Running<unknown>);
        };
      });
      obs = source.pipe(
        share<T>({
          connector: () => (replay ? new ReplaySubject<T>(1) : new Subject<T>()),
          resetOnError: true,
          resetOnComplete: true,
          resetOnRefCountZero: true,
        }),
      );
      this.shared.set(key, obs as Observable<unknown>);
    }
    return obs;
  }

  /** Number of replicas currently running. */
  get size(): number {
    return this.running.size;
  }

  closeAll(): void {
    for (const r of [...this.running]) r.close();
    this.running.clear();
    this.shared.clear();
  }
}
