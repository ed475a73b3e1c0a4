/**
 * RxJS reports an exception thrown by a subscriber's callback asynchronously, through
 * `config.onUnhandledError`, and by default rethrows it on a timer: that would take the
 * whole trading process down. While at least one client is open, such errors are routed to
 * the open clients' `errors$` as `SubscriberError` instead (the replica and the other
 * subscribers are unaffected either way). A handler the application installed itself is
 * left in place. @internal
 */
import { config } from 'rxjs';
import { SubscriberError } from '../errors';

type Sink = (error: SubscriberError) => void;

const sinks = new Set<Sink>();
let installed = false;

function handler(error: unknown): void {
  const wrapped = new SubscriberError(`a subscriber threw: ${(error as Error)?.message ?? String(error)}`, {}, { cause: error });
  for (const sink of sinks) sink(wrapped);
}

/** Routes subscriber exceptions to `sink` until the returned function is called. */
export function captureSubscriberErrors(sink: Sink): () => void {
  if (!installed && config.onUnhandledError == null) {
    config.onUnhandledError = handler;
    installed = true;
  }
  sinks.add(sink);
  return () => {
    sinks.delete(sink);
    if (sinks.size === 0 && installed && config.onUnhandledError === handler) {
      config.onUnhandledError = null;
      installed = false;
    }
  };
}
