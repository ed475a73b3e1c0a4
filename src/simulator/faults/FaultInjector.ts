/**
 * The simulator's fault API: feed faults (drops, skips, stalls, delays, feed unavailable),
 * REST faults (500 rate, latency) and a seeded random schedule. Every fault is in-process
 * and deterministic under the seed, given the same order of requests and events.
 */
import type { ConnectionInfo } from '../feed/FeedConnection';
import type { FeedServer } from '../feed/FeedServer';
import { checkInteger, checkNonNegative, checkRate } from '../SimulatorOptionError';
import { emptyFaultStats, type FaultKind, type FaultStats } from './faultKinds';
import { RandomFaultSchedule, type FaultTarget, type RandomFaultOptions } from './RandomFaultSchedule';
import type { RestFaults } from './RestFaults';

/**
 * @example
 * const sim = await Simulator.start();
 * sim.faults.resyncStream('book|market_id=0|is_perps=true');  // next book update skipped, resync_required before the one after
 * sim.faults.stallConnection(2000);                            // every connection: nothing sent for 2 s, pings unanswered
 * sim.faults.rest500Rate(0.2);                                 // one REST answer in five is a 500
 */
export class FaultInjector implements FaultTarget {
  private readonly counts: FaultStats = emptyFaultStats();
  private schedule: RandomFaultSchedule | undefined;
  private baseDelayMs = 0;
  private overlayDelayMs = 0;
  private overlayTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly feed: FeedServer,
    /** The REST hook (pass it to the REST server). */
    readonly rest: RestFaults,
    /** Told when the feed is turned off or on (so `/v1/status` can say whether it is served). */
    private readonly onFeedUnavailable: (on: boolean) => void = () => {},
  ) {}

  /** Open feed connections with their subscriptions (ids, channels, scopes, stream keys). */
  connections(): ConnectionInfo[] {
    return this.feed.connections();
  }

  connectionIds(): number[] {
    return this.feed.connections().map((c) => c.id);
  }

  /** Feed sockets dropped so far because their outgoing queue overflowed (a consequence of load or stalls, not an injected fault). */
  overflowDrops(): number {
    return this.feed.overflowDrops;
  }

  /** Stream keys with at least one subscriber, sorted. */
  subscribedStreams(): string[] {
    return this.feed.subscribedStreams();
  }

  /** Drops every feed socket at once (no close frame). Returns how many were dropped. */
  dropAll(): number {
    const n = this.feed.dropAll();
    this.count('dropAll', n > 0);
    return n;
  }

  /** Drops one feed socket at once (no close frame); without `id`, the newest. Returns false when there was none. */
  dropConnection(id?: number): boolean {
    const done = this.feed.dropConnection(id);
    this.count('dropConnection', done);
    return done;
  }

  /**
   * Skips the next `updates` updates of stream `key` for all its subscribers, then sends each
   * of them `resync_required` (reason `gap`) right before the stream's next update (whose
   * `seq` jumps). The stream's key is `streamKey(channel, scope)`.
   * @throws SimulatorOptionError when `updates` is not a positive integer
   */
  resyncStream(key: string, updates = 1): void {
    this.feed.streamFaults.skipWithResync(key, checkInteger('updates', updates, 1));
    this.count('resyncStream', true);
  }

  /**
   * Skips the next `n` updates of stream `key` without a word: subscribers see a `seq` jump.
   * @throws SimulatorOptionError when `n` is not a positive integer
   */
  skipSilently(key: string, n = 1): void {
    this.feed.streamFaults.skipSilently(key, checkInteger('n', n, 1));
    this.count('skipSilently', true);
  }

  /**
   * Holds the frames of stream `key` for `ms` on every connection (the socket stays open and
   * other streams flow); the held frames are then sent, in order.
   */
  stallStream(key: string, ms: number): void {
    this.feed.streamFaults.stall(key, checkNonNegative('ms', ms));
    this.count('stallStream', true);
  }

  /**
   * Holds every outgoing frame of one connection (without `id`: of every connection) for
   * `ms`, pongs included; the socket stays open and the frames then leave in order. Held
   * frames count toward the queue bound.
   */
  stallConnection(ms: number, id?: number): void {
    const n = this.feed.stallConnection(checkNonNegative('ms', ms), id);
    this.count('stallConnection', n > 0);
  }

  /** Delays every feed frame by `ms` from now on (0 = back to none); order is kept. */
  delayFrames(ms: number): void {
    this.baseDelayMs = checkNonNegative('ms', ms);
    this.applyDelay();
    if (ms > 0) this.count('delayFrames', true);
  }

  /** Delays every feed frame by at least `ms` during `forMs`, then back to the delay set by `delayFrames`. */
  delayFramesFor(ms: number, forMs: number): void {
    checkNonNegative('ms', ms);
    checkNonNegative('forMs', forMs);
    if (this.overlayTimer) clearTimeout(this.overlayTimer);
    this.overlayDelayMs = ms;
    this.overlayTimer = setTimeout(() => {
      this.overlayTimer = undefined;
      this.overlayDelayMs = 0;
      this.applyDelay();
    }, forMs);
    this.applyDelay();
    this.count('delayFrames', true);
  }

  /**
   * Answers this fraction of REST requests with 500 `INTERNAL_ERROR` (seeded draw per request).
   * @throws SimulatorOptionError unless 0 <= rate <= 1
   */
  rest500Rate(rate: number): void {
    this.rest.set500Rate(checkRate('rate', rate));
  }

  /** Adds `ms` of latency to every REST answer (0 = none). */
  restLatencyMs(ms: number): void {
    this.rest.setLatencyMs(checkNonNegative('ms', ms));
  }

  /** The next `n` REST requests are answered 500. */
  failNextRest(n: number): void {
    this.rest.failNext(checkInteger('n', n, 1));
    this.count('rest500', true);
  }

  /** The next REST request gets `ms` of extra latency. */
  delayNextRest(ms: number): void {
    this.rest.delayNext(checkNonNegative('ms', ms));
    this.count('restLatency', true);
  }

  /** While on, new feed connections get `FEED_UNAVAILABLE` and are closed (code 1000); open ones stay. */
  feedUnavailable(on: boolean): void {
    this.feed.setFeedUnavailable(on);
    this.onFeedUnavailable(on);
  }

  /**
   * Starts a seeded random-fault schedule (stopping the previous one).
   * @throws SimulatorOptionError on a bad rate or kind
   */
  randomFaults(options: RandomFaultOptions): RandomFaultSchedule {
    this.schedule?.stop();
    this.schedule = new RandomFaultSchedule(this, options);
    return this.schedule;
  }

  /** The running (or last) random schedule. */
  get randomSchedule(): RandomFaultSchedule | undefined {
    return this.schedule;
  }

  /** Every fault injected through this injector (by hand or by the random schedule), by kind. */
  stats(): FaultStats {
    return { total: this.counts.total, skipped: this.counts.skipped, byKind: { ...this.counts.byKind } };
  }

  /**
   * Back to a healthy exchange: random schedule stopped, skips forgotten, stalls ended (held
   * frames sent), no frame delay, no REST fault, feed available.
   */
  clear(): void {
    this.schedule?.stop();
    this.feed.streamFaults.clear();
    this.feed.unstallAll();
    this.baseDelayMs = 0;
    this.clearOverlay();
    this.applyDelay();
    this.rest.clear();
    this.feedUnavailable(false);
  }

  /** Stops the random schedule and this injector's timers (for shutdown). */
  stop(): void {
    this.schedule?.stop();
    this.clearOverlay();
  }

  private clearOverlay(): void {
    if (this.overlayTimer) clearTimeout(this.overlayTimer);
    this.overlayTimer = undefined;
    this.overlayDelayMs = 0;
  }

  private applyDelay(): void {
    this.feed.setDelayMs(Math.max(this.baseDelayMs, this.overlayDelayMs));
  }

  private count(kind: FaultKind, hit: boolean): void {
    if (!hit) {
      this.counts.skipped++;
      return;
    }
    this.counts.total++;
    this.counts.byKind[kind]++;
  }
}
