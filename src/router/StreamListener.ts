import type { RouterEvent } from './RouterEvent';

/**
 * A direct consumer of one stream of the router (`SubscriptionRouter.listen`): called in
 * place, without an RxJS subscriber chain per event (the hot path of a replica). An RxJS
 * `Subscriber` is one. `error` and `complete` end it: the router has already dropped it.
 */
export interface StreamListener {
  next(event: RouterEvent): void;
  error(error: unknown): void;
  complete(): void;
}
