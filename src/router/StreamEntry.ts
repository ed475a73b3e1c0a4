import type { ChannelName, Scope } from '../protocol';
import type { StreamListener } from './StreamListener';

/**
 * - `idle`: no server subscription on the current socket (not sent yet, or the socket dropped).
 * - `subscribing`: a subscribe request is in flight.
 * - `active`: the server acknowledged it with `subscriptionId`.
 */
export type StreamPhase = 'idle' | 'subscribing' | 'active';

/** One stream of the router: its subscribers and its server subscription on the current socket. */
export class StreamEntry {
  /** The listeners of this stream; its size is the reference count. */
  readonly observers = new Set<StreamListener>();
  phase: StreamPhase = 'idle';
  /** Server id while `active`. */
  subscriptionId: string | undefined;
  /** Connection generation of `subscriptionId`. */
  generation = 0;

  constructor(
    readonly key: string,
    readonly channel: ChannelName,
    readonly scope: Scope,
  ) {}
}
