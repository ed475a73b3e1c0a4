import type { StreamSyncOptions } from '../replicas';
import type { ResolvedClientOptions } from './clientOptions';

/** The components' options with their time, randomness, socket and HTTP as the client's interceptor wraps them. */
export interface InterceptedIo {
  readonly rest: ResolvedClientOptions['rest'];
  readonly connection: ResolvedClientOptions['connection'];
  readonly routerClock: ResolvedClientOptions['router']['clock'];
  /** The replicas' clock and random as the interceptor wraps them (empty without one). */
  readonly replica: Pick<StreamSyncOptions, 'clock' | 'random'>;
}

/**
 * Begins the interceptor's session (`record`, e.g. the feed recorder) and wraps every strategy
 * the components use, so that it sees them all; without one, the options as they are.
 */
export function interceptedIo(o: ResolvedClientOptions, given: object): InterceptedIo {
  const io = o.record;
  if (io === undefined) return { rest: o.rest, connection: o.connection, routerClock: o.router.clock, replica: {} };
  io.begin({ restUrl: o.restUrl, wsUrl: o.wsUrl, options: given });
  return {
    rest: { ...o.rest, clock: io.wrapClock(o.rest.clock!), random: io.wrapRandom(o.rest.random!), fetch: io.wrapFetch(o.rest.fetch) },
    connection: { ...o.connection, clock: io.wrapClock(o.connection.clock!), random: io.wrapRandom(o.connection.random!), WebSocket: io.wrapWebSocket(o.connection.WebSocket) },
    routerClock: io.wrapClock(o.router.clock!),
    replica: { clock: io.wrapClock(o.replica.clock!), random: io.wrapRandom(o.replica.random!) },
  };
}
