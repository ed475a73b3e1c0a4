/**
 * Internal contracts between the simulator's parts: the engine (world model, matching,
 * REST state), the feed server and the fault injector. @internal
 */
import type { ChannelName, OperationName, Scope } from '../protocol';

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
  /** `JSON.stringify(data)`, computed once so every subscriber reuses it. */
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

/** Lets the feed check that a scope names things that exist (else INVALID_SUBSCRIPTION). */
export interface ScopeChecker {
  /** Returns an error message when the scope names an unknown market or account, else undefined. */
  checkScopeExists(channel: ChannelName, scope: Scope): string | undefined;
}

/** Decision of the fault injector for one REST request. */
export interface RestFaultDecision {
  /** Answer 500 INTERNAL_ERROR instead of serving. */
  readonly fail500?: boolean;
  /** Delay the answer by this many milliseconds. */
  readonly delayMs?: number;
}

/** Hook the REST server consults before serving each request. */
export interface RestFaultHook {
  beforeRequest(operation: OperationName): RestFaultDecision;
}
