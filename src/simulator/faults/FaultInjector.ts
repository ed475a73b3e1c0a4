/**
 * The simulator's fault API: feed faults (drops, skips, stalls, delays, feed unavailable),
 * REST faults (500 rate, latency) and a seeded random schedule. Every fault is in-process
 * and deterministic under the seed, given the same order of requests and events.
 */
import type { ConnectionInfo } from '../feed/ConnectionInfo';
import type { FeedServer } from '../feed/FeedServer';
import { checkInteger, checkNonNegative, checkRate } from '../SimulatorOptionError';
import { emptyFaultStats, type FaultKind, type FaultStats } from './faultKinds';
import { RandomFaultSchedule, type FaultTarget, type RandomFaultOptions } from './RandomFaultSchedule';
import type { RestFaults } from './RestFaults';

/**
 * Feed faults hit every connection, or one connection when given its id (see
 * {@link connections}): so two connections of one client (an A/B pair of lines) can be
 * faulted independently over real sockets.
 * @example
 * const sim = await Simulator.start();
 * sim.faults.resyncStream('book|market_id=0|is_perps=true');  // next book update skipped, resync_required before the one after
 * sim.faults.stallConnection(2000);                            // every connection: nothing sent for 2 s, pings unanswered
 * sim.faults.rest500Rate(0.2);                                 // one REST answer in five is a 500
 * const [a, b] = sim.faults.connectionIds();
 * sim.faults.skipSilently('book|market_id=0|is_perps=true', 3, a); // line a misses 3 updates, line b gets them
 * sim.faults.delayConnection(b, { ms: 5, jitterMs: 20 });      // line b: every frame 5-25 ms late, in order
 */
export class FaultInjector implements FaultTarget {
  private readonly counts: FaultStats = emptyFaultStats();
  private schedule: RandomFaultSchedule | undefined;
  private baseDelayMs = 0;
  private baseJitterMs = 0;
  private overlayDelayMs = 0;
  private overlayTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly feed: FeedServer,
    /** The REST hook (pass it to the REST server). */
    readonly rest: RestFaults,
    /** Told when the feed is turned off or on (so `/v1/status` can say whether it is served). */
    private readonly onFeedUnavailable: (on: boolean) => void = () => {},
    /** Seed of the frame-delay jitter draws (each connection draws from its own generator, seeded by this and its id). Defaults to the REST faults' seed (the simulator's `faultSeed`). */
    faultSeed: number = rest.seed,
  ) {
    feed.seedJitter(faultSeed);
  }

  /**
   * Open feed connections, oldest first, with their ids (what the per-connection faults
   * take) and subscriptions (ids, channels, scopes, stream keys).
   * @example
   * const lineA = sim.faults.connections().find((c) => c.subscriptions.some((s) => s.key === key))!.id;
   */
  connections(): ConnectionInfo[] {
    return this.feed.connections();
  }

  /** Ids of the open feed connections, oldest first (a client's two lines are the two ids it opened). */
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
   *
   * With `connectionId`, only that connection's subscriptions of the stream miss the next
   * `updates` updates (then get `resync_required`); every other subscriber gets them, with
   * the same `seq` and data (a stream's numbering is shared by all its subscribers). A
   * stream-wide skip pending is consumed first. Returns false (and arms nothing) when that
   * connection is not open or not subscribed to `key`.
   * @example
   * sim.faults.resyncStream(streamKey('book', { market_id: 0, is_perps: true }), 2, lineA);
   * @throws SimulatorOptionError when `updates` is not a positive integer, or `connectionId` not a positive integer
   */
  resyncStream(key: string, updates = 1, connectionId?: number): boolean {
    checkInteger('updates', updates, 1);
    if (connectionId === undefined) this.feed.streamFaults.skipWithResync(key, updates);
    else if (this.subscribed(connectionId, key)) this.feed.streamFaults.skipWithResyncOn(key, connectionId, updates);
    else return this.count('resyncStream', false);
    return this.count('resyncStream', true);
  }

  /**
   * Skips the next `n` updates of stream `key` without a word: subscribers see a `seq` jump.
   *
   * With `connectionId`, only that connection's subscriptions of the stream see the jump;
   * every other subscriber gets the skipped updates, with the same `seq` and data. Returns
   * false (and arms nothing) when that connection is not open or not subscribed to `key`.
   * @example
   * sim.faults.skipSilently(streamKey('trades', { market_id: 0, is_perps: true }), 3, lineB);
   * @throws SimulatorOptionError when `n` is not a positive integer, or `connectionId` not a positive integer
   */
  skipSilently(key: string, n = 1, connectionId?: number): boolean {
    checkInteger('n', n, 1);
    if (connectionId === undefined) this.feed.streamFaults.skipSilently(key, n);
    else if (this.subscribed(connectionId, key)) this.feed.streamFaults.skipSilentlyOn(key, connectionId, n);
    else return this.count('skipSilently', false);
    return this.count('skipSilently', true);
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

  /**
   * Delays every feed frame of every connection from now on by `ms` plus, with `jitterMs`, a
   * uniform random draw in [0, `jitterMs`) made per frame from each connection's own seeded
   * generator (seeded by the fault seed and the connection id: the same seed gives each
   * connection the same draws, whatever the other connections carry). Order is kept on each
   * connection: a frame is never due before the frame queued ahead of it. `delayFrames(0)`
   * = back to none. A connection's own delay ({@link delayConnection}) is added to this one.
   * @example
   * sim.faults.delayFrames(2, { jitterMs: 30 });  // every line 2-32 ms late, each its own draws
   * @throws SimulatorOptionError when `ms` or `jitterMs` is not a finite number >= 0
   */
  delayFrames(ms: number, options: { jitterMs?: number } = {}): void {
    this.baseDelayMs = checkNonNegative('ms', ms);
    this.baseJitterMs = checkNonNegative('jitterMs', options.jitterMs ?? 0);
    this.applyDelay();
    if (ms > 0 || this.baseJitterMs > 0) this.count('delayFrames', true);
  }

  /**
   * Delays every frame of connection `connectionId` (updates, acks, pongs) from its next one on by
   * `ms` plus, with `jitterMs`, a uniform draw in [0, `jitterMs`) per frame from that
   * connection's seeded generator, on top of the delay of every connection
   * ({@link delayFrames}). Order is kept: a frame is never due before the one queued ahead
   * of it. `{ ms: 0 }` removes it (frames already waiting keep their due time). Returns false
   * when no such connection is open. Counted as a `delayFrames` fault.
   * @example
   * const [lineA, lineB] = sim.faults.connectionIds();
   * sim.faults.delayConnection(lineB, { ms: 10, jitterMs: 40 });
   * @throws SimulatorOptionError when `connectionId` is not a positive integer, or `ms` or `jitterMs` not a finite number >= 0
   */
  delayConnection(connectionId: number, delay: { ms: number; jitterMs?: number }): boolean {
    checkInteger('connectionId', connectionId, 1);
    const ms = checkNonNegative('ms', delay.ms);
    const jitterMs = checkNonNegative('jitterMs', delay.jitterMs ?? 0);
    const done = this.feed.setConnectionDelay(connectionId, { ms, jitterMs });
    if (!done || ms > 0 || jitterMs > 0) this.count('delayFrames', done);
    return done;
  }

  /**
   * Delays every feed frame by at least `ms` during `forMs`, then back to the delay set by
   * `delayFrames` (whose jitter stays in force meanwhile).
   * @throws SimulatorOptionError when `ms` or `forMs` is not a finite number >= 0
   */
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
   * Back to a healthy exchange: random schedule stopped, skips forgotten (per connection
   * too), stalls ended (held frames sent), no frame delay (per connection neither), no REST
   * fault, feed available.
   */
  clear(): void {
    this.schedule?.stop();
    this.feed.streamFaults.clear();
    this.feed.unstallAll();
    this.feed.clearConnectionDelays();
    this.baseDelayMs = 0;
    this.baseJitterMs = 0;
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
    this.feed.setFrameDelay({ ms: Math.max(this.baseDelayMs, this.overlayDelayMs), jitterMs: this.baseJitterMs });
  }

  /** @throws SimulatorOptionError when `connectionId` is not a positive integer */
  private subscribed(connectionId: number, key: string): boolean {
    return this.feed.isSubscribed(checkInteger('connectionId', connectionId, 1), key);
  }

  /** Counts a fault (or a fault without target); returns `hit`. */
  private count(kind: FaultKind, hit: boolean): boolean {
    if (!hit) {
      this.counts.skipped++;
      return false;
    }
    this.counts.total++;
    this.counts.byKind[kind]++;
    return true;
  }
}
