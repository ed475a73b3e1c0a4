/**
 * What stands between a client and the world: time (`Clock`), randomness, sockets and HTTP.
 * Every one of them is injectable, and an {@link ClientIoInterceptor} (the feed recorder of
 * src/record) can wrap all four at once: that is how a session is recorded, and a recording
 * replayed, without the client knowing.
 */
import type { Clock } from '../clock';
import type { WebSocketConstructor } from '../connection';
import type { Reducer, StateChannel, StateChannelStates } from '../replicas';
import type { FetchLike } from '../rest';

/** What the client tells an interceptor about itself when it is built. */
export interface ClientIoSession {
  readonly restUrl: string;
  readonly wsUrl: string;
  /** The options the client was given (functions and class instances included: keep what you can store). */
  readonly options: object;
}

/**
 * Wraps the strategies a client uses (e.g. a recorder logging every input). The client calls
 * `begin` once, then wraps each component's strategy (a strategy left at its default is
 * passed as `undefined` for the socket class and fetch), and calls `close` after its own
 * `close()`.
 */
export interface ClientIoInterceptor {
  begin(session: ClientIoSession): void;
  wrapClock(clock: Clock): Clock;
  wrapRandom(random: () => number): () => number;
  wrapWebSocket(ctor: WebSocketConstructor | undefined): WebSocketConstructor;
  wrapFetch(fetch: FetchLike | undefined): FetchLike;
  /** Called once by `client.close()`, after the client has closed. */
  close(): Promise<void>;
}

/**
 * Replaces the reducer of a state channel: receives the library's reducer and returns the one
 * to use (a wrapper that logs, checks, or, in tests, injects a bug).
 */
export type ReducerOverrides = { readonly [C in StateChannel]?: (standard: Reducer<StateChannelStates[C]>) => Reducer<StateChannelStates[C]> };
