/**
 * How the engine's updates reach the feed server: per-stream sequence counters and the
 * fan-out of stream events (implemented by `SimStreamHub`). @internal
 */
import type { ChannelName, Scope } from '../protocol';

/** One update of one stream, as published by the engine. */
export interface StreamEvent {
  readonly channel: ChannelName;
  readonly scope: Scope;
  /** Canonical stream key (`streamKey(channel, scope)` of the protocol module). */
  readonly key: string;
  /** The stream's sequence number of this update (contiguous per stream, starting at 1). */
  readonly seq: bigint;
  /** The update's `data`, already valid for the channel's schema. */
  readonly data: unknown;
  /** The text of `data` (the protocol's `writeUpdateData`), computed once so every subscriber reuses it. */
  readonly dataJson: string;
}

/** Per-stream sequence counters and fan-out of stream events. */
export interface StreamHub {
  /** The current (last published) seq of a stream, 0n if none yet. */
  seq(key: string): bigint;
  /** Publishes one update: increments the stream's seq and notifies listeners synchronously. */
  publish(channel: ChannelName, scope: Scope, data: unknown): StreamEvent;
  /** Listens to every published event; returns the unsubscribe function. */
  onEvent(listener: (event: StreamEvent) => void): () => void;
}
