/** The options of a `SubscriptionRouter` and their defaults (applied here and nowhere else). */
import { systemClock, type Clock } from '../clock/Clock';
import { InvalidParameterError } from '../errors';
import { fastDecodeServerFrame, type ChannelName, type DecodeResult, type DriftReport, type ValidateOptions } from '../protocol';

/**
 * What a frame decoder returns: the protocol's `DecodeResult`, where a decoder that already
 * checked an update's `data` against its channel's schema (a fast path) says so with
 * `dataValidated: true`, and the router does not check it again.
 */
export type RouterDecodeResult = (Extract<DecodeResult, { ok: true }> & { readonly dataValidated?: boolean }) | Extract<DecodeResult, { ok: false }>;

/** Turns one text frame into a typed server frame; never throws. */
export type FrameDecoder = (text: string, options: ValidateOptions) => RouterDecodeResult;

/** Where a drift report comes from: an update of a stream, or (no channel) a frame's envelope. */
export interface DriftContext {
  readonly channel?: ChannelName;
  readonly stream?: string;
}

export interface RouterOptions {
  /** Time a subscribe or unsubscribe may wait for its answer. @default 10000 */
  readonly requestTimeoutMs?: number;
  /** Reject frames and update data with unexpected keys instead of dropping the keys. @default false */
  readonly strict?: boolean;
  /** Called for each location where unexpected keys were dropped (non-strict mode). @default none */
  readonly onDrift?: (report: DriftReport, context: DriftContext) => void;
  /** Frame decoder. @default fastDecodeServerFrame: a validating scanner for hot update frames (book, bbo, trades), falling back to JSON.parse + zod for anything else */
  readonly decode?: FrameDecoder;
  /** Time source: `receivedAtNs` of updates (its `nowNs()`) and request deadlines (its timers). @default systemClock */
  readonly clock?: Clock;
  /**
   * When no stream has had a subscriber for this long, the feed connection is closed (state
   * `idle`); the next subscribe opens it again. A process that forgot `close()` can then exit
   * once its subscribers are gone. `Infinity` keeps the connection open.
   * @default 5000
   */
  readonly idleCloseMs?: number;
}

export interface ResolvedRouterOptions {
  readonly requestTimeoutMs: number;
  readonly strict: boolean;
  readonly onDrift: ((report: DriftReport, context: DriftContext) => void) | undefined;
  readonly decode: FrameDecoder;
  readonly clock: Clock;
  readonly idleCloseMs: number;
}

/**
 * Applies the defaults of `RouterOptions`.
 * @throws InvalidParameterError when `requestTimeoutMs` is not positive.
 */
export function resolveRouterOptions(options: RouterOptions): ResolvedRouterOptions {
  const resolved: ResolvedRouterOptions = {
    requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
    strict: options.strict ?? false,
    onDrift: options.onDrift,
    decode: options.decode ?? fastDecodeServerFrame,
    clock: options.clock ?? systemClock,
    idleCloseMs: options.idleCloseMs ?? 5_000,
  };
  if (!(resolved.idleCloseMs >= 0)) throw new InvalidParameterError(`invalid 'idleCloseMs': expected a number of milliseconds >= 0 (or Infinity), got ${String(resolved.idleCloseMs)}`, { param: 'idleCloseMs' });
  if (!(resolved.requestTimeoutMs > 0)) throw new InvalidParameterError(`requestTimeoutMs must be > 0: got ${resolved.requestTimeoutMs}`, { param: 'requestTimeoutMs' });
  return resolved;
}
