/**
 * Waiting for a replica to be `live` without RxJS plumbing: one subscription, one cleanup,
 * whichever of live / error / completion / abort comes first.
 */
import type { Observable, Subscription } from 'rxjs';
import { AbortedError, ClientClosedError } from '../errors';
import { asExchangeReplicaError } from '../errors/asExchangeReplicaError';
import type { ReplicaStatus } from '../replicas';

/** Options of {@link whenLive}. */
export interface WhenLiveOptions {
  /**
   * Gives up waiting when it fires (use `AbortSignal.timeout(ms)` for a deadline); the promise
   * rejects with an `AbortedError` whose `cause` is the signal's reason.
   * @default undefined (wait as long as it takes)
   */
  readonly signal?: AbortSignal;
}

/**
 * Resolves with the first emission of `source` whose status is `live` (an exact state).
 *
 * The subscription it makes ends when the promise settles. A replica lives while someone is
 * subscribed to it, so hold a subscription of your own (or iterate it) for the state to keep
 * following the stream after this resolves; without one, the replica closes and the state
 * you got stays as it was at that moment.
 *
 * @example
 * const book$ = client.orderBook({ market_type: 'perp', market_id: 0 });
 * const sub = book$.subscribe(onBook);                 // keeps the replica running
 * const { state } = await whenLive(book$, { signal: AbortSignal.timeout(10_000) });
 * console.log(state.bestBid());
 * @throws AbortedError when `signal` fires first; the replica's own error (an
 * `ExchangeReplicaError`, e.g. a refused scope) when it fails first; ClientClosedError when the
 * source completes (the client was closed) before it was live.
 */
export function whenLive<E extends { readonly status: ReplicaStatus }>(source: Observable<E>, options: WhenLiveOptions = {}): Promise<E> {
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(aborted(signal));
  return new Promise<E>((resolve, reject) => {
    let settled = false;
    let sub: Subscription | undefined;
    const onAbort = () => finish(() => reject(aborted(signal!)));
    sub = source.subscribe({
      next: (e) => {
        if (e.status === 'live') finish(() => resolve(e));
      },
      error: (e: unknown) => finish(() => reject(asExchangeReplicaError(e))),
      complete: () => finish(() => reject(new ClientClosedError('the replica completed before it was live: its client was closed'))),
    });
    // A source that settled synchronously (a replayed live state) has nothing left to hold.
    if (settled) sub.unsubscribe();
    else signal?.addEventListener('abort', onAbort, { once: true });

    function finish(settle: () => void): void {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      // `sub` is not assigned yet when the source settles during subscribe().
      sub?.unsubscribe();
      settle();
    }
  });
}

function aborted(signal: AbortSignal): AbortedError {
  return new AbortedError('whenLive: aborted by the caller before the replica was live', {}, { cause: signal.reason });
}
