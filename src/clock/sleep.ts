/** Waiting on a {@link Clock}, abortably: the one wait of every retry loop. */
import { systemClock, type Clock } from './Clock';

/**
 * Resolves after `ms` on `clock`; rejects with the signal's reason as soon as `signal`
 * aborts (at once when it already has), leaving no timer behind.
 * @example await sleep(backoff.next()!, signal, clock);
 */
export function sleep(ms: number, signal?: AbortSignal, clock: Clock = systemClock): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      timer.cancel();
      reject(signal!.reason);
    };
    const timer = clock.setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
