import { SubscriberError, type ExchangeReplicaError } from '../errors';
import type { RouterEvent } from './RouterEvent';
import type { StreamEntry } from './StreamEntry';
import type { StreamListener } from './StreamListener';

/**
 * Subscriber isolation of the router's delivery: a listener that throws affects nobody else,
 * and what it threw is reported as a `SubscriberError` naming its stream.
 */

/** Delivers one event to every listener of a stream. */
export function dispatch(entry: StreamEntry, event: RouterEvent, report: (error: ExchangeReplicaError) => void): void {
  for (const listener of entry.observers) {
    try {
      listener.next(event);
    } catch (cause) {
      report(new SubscriberError(`a subscriber of ${entry.key} threw on a ${event.kind} event`, { channel: entry.channel, stream: entry.key }, { cause }));
    }
  }
}

/** Ends every listener of a stream (`error` when given, else `complete`) and drops them. */
export function endAll(entry: StreamEntry, error: ExchangeReplicaError | undefined, report: (error: ExchangeReplicaError) => void): void {
  const listeners = [...entry.observers];
  entry.observers.clear();
  for (const listener of listeners) deliverEnd(entry, listener, error, report);
}

/** Ends one listener (`error` when given, else `complete`). */
function deliverEnd(entry: StreamEntry, listener: StreamListener, error: ExchangeReplicaError | undefined, report: (error: ExchangeReplicaError) => void): void {
  try {
    if (error === undefined) listener.complete();
    else listener.error(error);
  } catch (cause) {
    report(new SubscriberError(`a subscriber of ${entry.key} threw on the end of the stream`, { channel: entry.channel, stream: entry.key }, { cause }));
  }
}
