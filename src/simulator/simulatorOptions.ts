/**
 * The options of a Simulator: one interface, its defaults and their checks, applied in one
 * place (the `simulate` command goes through the same checks).
 */
import { systemClock, type Clock } from '../clock/Clock';
import { SERVER_IDLE_TIMEOUT_MS } from '../protocol';
import { FAULT_KINDS, isFaultKind, type FaultKind } from './faults/faultKinds';
import { FEED_SERVER_DEFAULTS } from './feed/FeedServer';
import { checkInteger, checkNonNegative, checkRate, SimulatorOptionError } from './SimulatorOptionError';

/** Options of {@link Simulator.start}. Every field is optional. */
export interface SimulatorOptions {
  /**
   * TCP port of REST and the feed (`/ws`); 0 = any free port.
   * @default 0
   */
  port?: number;
  /**
   * Interface to listen on.
   * @default "127.0.0.1"
   */
  host?: string;
  /**
   * Seed of the world and its order flow: the same seed gives the same markets, accounts and events.
   * @default 1
   */
  seed?: number;
  /**
   * A feed client silent this long is closed with `HEARTBEAT_TIMEOUT`.
   * @default 60000
   */
  heartbeatTimeoutMs?: number;
  /**
   * Order-flow events per second while running (each changes some market; every market's
   * book changes several times a second at the default).
   * @default 200
   */
  eventsPerSecond?: number;
  /**
   * Start with the order flow paused (drive it with `step`).
   * @default false
   */
  paused?: boolean;
  /**
   * Bound of each feed connection's outgoing queue, in bytes; past it the socket is dropped.
   * @default 4194304 (4 MiB)
   */
  maxQueueBytes?: number;
  /**
   * Seed of the fault PRNGs (REST 500 draws and the random schedule).
   * @default the value of `seed`
   */
  faultSeed?: number;
  /**
   * Fraction of REST requests answered 500 `INTERNAL_ERROR`.
   * @default 0
   */
  rest500Rate?: number;
  /**
   * Milliseconds added to every REST answer.
   * @default 0
   */
  restLatencyMs?: number;
  /**
   * Serve no feed: every connection gets `FEED_UNAVAILABLE` and is closed.
   * @default false
   */
  feedUnavailable?: boolean;
  /**
   * Milliseconds by which every feed frame is delayed (order kept).
   * @default 0
   */
  delayFramesMs?: number;
  /**
   * Mean number of random faults per second (0 = none).
   * @default 0
   */
  randomFaultsPerSecond?: number;
  /**
   * Kinds the random faults are drawn from.
   * @default every kind
   */
  randomFaultKinds?: readonly FaultKind[];
  /**
   * Time source of the engine's event timestamps and the feed (frame timestamps, heartbeat
   * deadlines, frame delays, stalls).
   * @default systemClock
   */
  clock?: Clock;
}

export type ResolvedSimulatorOptions = Required<SimulatorOptions>;

/** Largest events-per-second accepted (far above what any test needs). */
const MAX_EVENTS_PER_SECOND = 1_000_000;

/**
 * Applies the defaults and checks every option.
 * @throws SimulatorOptionError naming the first option out of range
 */
export function resolveSimulatorOptions(options: SimulatorOptions = {}): ResolvedSimulatorOptions {
  const seed = options.seed ?? 1;
  const o: ResolvedSimulatorOptions = {
    port: options.port ?? 0,
    host: options.host ?? '127.0.0.1',
    seed,
    heartbeatTimeoutMs: options.heartbeatTimeoutMs ?? SERVER_IDLE_TIMEOUT_MS,
    eventsPerSecond: options.eventsPerSecond ?? 200,
    paused: options.paused ?? false,
    maxQueueBytes: options.maxQueueBytes ?? FEED_SERVER_DEFAULTS.maxQueueBytes,
    faultSeed: options.faultSeed ?? seed,
    rest500Rate: options.rest500Rate ?? 0,
    restLatencyMs: options.restLatencyMs ?? 0,
    feedUnavailable: options.feedUnavailable ?? false,
    delayFramesMs: options.delayFramesMs ?? 0,
    randomFaultsPerSecond: options.randomFaultsPerSecond ?? 0,
    randomFaultKinds: options.randomFaultKinds ?? FAULT_KINDS,
    clock: options.clock ?? systemClock,
  };
  checkInteger('port', o.port, 0, 65535);
  if (typeof o.host !== 'string' || o.host.length === 0) throw new SimulatorOptionError('host', 'expected a non-empty host name or address');
  checkInteger('seed', o.seed, -(2 ** 31), 2 ** 32 - 1);
  checkInteger('faultSeed', o.faultSeed, -(2 ** 31), 2 ** 32 - 1);
  checkInteger('heartbeatTimeoutMs', o.heartbeatTimeoutMs, 1, 2 ** 31 - 1);
  checkNonNegative('eventsPerSecond', o.eventsPerSecond);
  if (o.eventsPerSecond > MAX_EVENTS_PER_SECOND) throw new SimulatorOptionError('eventsPerSecond', `expected at most ${MAX_EVENTS_PER_SECOND}, got ${o.eventsPerSecond}`);
  checkInteger('maxQueueBytes', o.maxQueueBytes, 1024);
  checkRate('rest500Rate', o.rest500Rate);
  checkNonNegative('restLatencyMs', o.restLatencyMs);
  checkNonNegative('delayFramesMs', o.delayFramesMs);
  checkNonNegative('randomFaultsPerSecond', o.randomFaultsPerSecond);
  if (o.randomFaultKinds.length === 0) throw new SimulatorOptionError('randomFaultKinds', `expected at least one of: ${FAULT_KINDS.join(', ')}`);
  if (typeof o.clock?.nowNs !== 'function' || typeof o.clock.nowMs !== 'function' || typeof o.clock.setTimer !== 'function') {
    throw new SimulatorOptionError('clock', 'expected a Clock (nowNs, nowMs, setTimer)');
  }
  for (const k of o.randomFaultKinds) {
    if (!isFaultKind(k)) throw new SimulatorOptionError('randomFaultKinds', `unknown fault kind ${JSON.stringify(k)}; expected one of: ${FAULT_KINDS.join(', ')}`);
  }
  return o;
}
