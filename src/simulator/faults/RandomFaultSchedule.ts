/**
 * A seeded random-fault schedule for soak tests: faults arrive as a Poisson process of
 * `ratePerSecond`, each of a kind drawn from `kinds`, aimed at a target drawn among the
 * connections or subscribed streams open at that moment. The sequence of (time, kind,
 * target draw, amount) depends on the seed alone; see {@link planRandomFaults}.
 */
import { checkInteger, checkPositive, SimulatorOptionError } from '../SimulatorOptionError';
import { emptyFaultStats, FAULT_KINDS, isFaultKind, type FaultKind, type FaultStats } from './faultKinds';
import { Prng } from '../engine/Prng';

/** Options of a random-fault schedule. */
export interface RandomFaultOptions {
  /** Mean number of faults per second. */
  ratePerSecond: number;
  /**
   * Seed of the schedule.
   * @default 1
   */
  seed?: number;
  /**
   * Kinds to draw from (each equally likely).
   * @default every kind of FAULT_KINDS
   */
  kinds?: readonly FaultKind[];
  /**
   * Upper bound of the duration of stalls, frame delays and REST latency, in ms.
   * @default 1000
   */
  maxDurationMs?: number;
  /** Called after each fault (for logs and tests). */
  onFault?: (fault: AppliedFault) => void;
}

/** One drawn fault, before its target is resolved. */
export interface PlannedFault {
  /** Milliseconds after the previous fault (or the start). */
  readonly afterMs: number;
  readonly kind: FaultKind;
  /** A draw in [0, 1) that picks the target among the candidates sorted. */
  readonly pick: number;
  /** Count (skips, REST failures) or duration in ms (stalls, delays, latency). */
  readonly amount: number;
}

/** A fault as applied: its plan and the target it hit (undefined when none was open). */
export interface AppliedFault extends PlannedFault {
  readonly index: number;
  readonly target: string | number | undefined;
}

/** What the schedule acts on (the FaultInjector). */
export interface FaultTarget {
  connectionIds(): readonly number[];
  subscribedStreams(): readonly string[];
  dropConnection(id: number): boolean;
  dropAll(): number;
  resyncStream(key: string, updates: number): void;
  skipSilently(key: string, n: number): void;
  stallStream(key: string, ms: number): void;
  stallConnection(ms: number, id: number): void;
  delayFramesFor(ms: number, forMs: number): void;
  failNextRest(n: number): void;
  delayNextRest(ms: number): void;
}

/** How long a random frame delay stays in force. */
const DELAY_WINDOW_MS = 1000;

/** Draws the schedule (a pure function of the options). */
export class FaultPlanner {
  private readonly prng: Prng;
  private readonly kinds: readonly FaultKind[];
  private readonly meanGapMs: number;
  private readonly maxMs: number;

  constructor(options: RandomFaultOptions) {
    checkPositive('ratePerSecond', options.ratePerSecond);
    const kinds = options.kinds ?? FAULT_KINDS;
    if (kinds.length === 0) throw new SimulatorOptionError('kinds', `expected at least one of: ${FAULT_KINDS.join(', ')}`);
    for (const k of kinds) if (!isFaultKind(k)) throw new SimulatorOptionError('kinds', `unknown fault kind ${JSON.stringify(k)}; expected one of: ${FAULT_KINDS.join(', ')}`);
    this.maxMs = checkInteger('maxDurationMs', options.maxDurationMs ?? 1000, 10);
    this.prng = Prng.xorSeeded(options.seed ?? 1);
    this.kinds = kinds;
    this.meanGapMs = 1000 / options.ratePerSecond;
  }

  /** The next fault: always four draws, so the sequence never depends on what was open. */
  next(): PlannedFault {
    const afterMs = Math.max(1, Math.round(-Math.log(1 - this.prng.float()) * this.meanGapMs));
    const kind = this.kinds[Math.floor(this.prng.float() * this.kinds.length)]!;
    const pick = this.prng.float();
    const u = this.prng.float();
    return { afterMs, kind, pick, amount: amountOf(kind, u, this.maxMs) };
  }
}

function amountOf(kind: FaultKind, u: number, maxMs: number): number {
  const between = (lo: number, hi: number) => lo + Math.floor(u * (Math.max(lo, hi) - lo + 1));
  switch (kind) {
    case 'resyncStream':
    case 'skipSilently':
    case 'rest500':
      return between(1, 3);
    case 'stallStream':
    case 'stallConnection':
    case 'restLatency':
      return between(Math.min(50, maxMs), maxMs);
    case 'delayFrames':
      return between(Math.min(10, maxMs), Math.floor(maxMs / 4));
    case 'dropConnection':
    case 'dropAll':
      return 0;
  }
}

/** The first `count` faults a schedule with these options would draw. */
export function planRandomFaults(options: RandomFaultOptions, count: number): PlannedFault[] {
  const planner = new FaultPlanner(options);
  return Array.from({ length: count }, () => planner.next());
}

/**
 * A running schedule. Created by `FaultInjector.randomFaults`.
 * @example
 * const schedule = sim.faults.randomFaults({ ratePerSecond: 2, seed: 7 });
 * // ... soak ...
 * schedule.stop();
 * console.log(schedule.stats().byKind);
 */
export class RandomFaultSchedule {
  private readonly planner: FaultPlanner;
  private readonly counts: FaultStats = emptyFaultStats();
  private timer: NodeJS.Timeout | undefined;
  private index = 0;
  private stopped = false;

  constructor(
    private readonly target: FaultTarget,
    private readonly options: RandomFaultOptions,
  ) {
    this.planner = new FaultPlanner(options);
    this.arm();
  }

  /** Faults injected so far, by kind. */
  stats(): FaultStats {
    return { total: this.counts.total, skipped: this.counts.skipped, byKind: { ...this.counts.byKind } };
  }

  get running(): boolean {
    return !this.stopped;
  }

  /** Stops drawing faults (faults in force run their course). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    const fault = this.planner.next();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.stopped) return;
      this.apply(fault);
      if (!this.stopped) this.arm();
    }, fault.afterMs);
  }

  private apply(fault: PlannedFault): void {
    const target = this.resolve(fault);
    if (target === undefined && fault.kind !== 'delayFrames' && fault.kind !== 'rest500' && fault.kind !== 'restLatency') {
      this.counts.skipped++;
    } else {
      this.counts.total++;
      this.counts.byKind[fault.kind]++;
    }
    this.options.onFault?.({ ...fault, index: this.index++, target });
  }

  /** Applies the fault; returns its target (undefined when there was none). */
  private resolve(fault: PlannedFault): string | number | undefined {
    const t = this.target;
    const pickOf = <T>(list: readonly T[]): T | undefined => list[Math.floor(fault.pick * list.length)];
    switch (fault.kind) {
      case 'dropAll': {
        const n = t.dropAll();
        return n > 0 ? n : undefined;
      }
      case 'dropConnection':
      case 'stallConnection': {
        const id = pickOf([...t.connectionIds()].sort((a, b) => a - b));
        if (id === undefined) return undefined;
        if (fault.kind === 'dropConnection') t.dropConnection(id);
        else t.stallConnection(fault.amount, id);
        return id;
      }
      case 'resyncStream':
      case 'skipSilently':
      case 'stallStream': {
        const key = pickOf([...t.subscribedStreams()].sort());
        if (key === undefined) return undefined;
        if (fault.kind === 'resyncStream') t.resyncStream(key, fault.amount);
        else if (fault.kind === 'skipSilently') t.skipSilently(key, fault.amount);
        else t.stallStream(key, fault.amount);
        return key;
      }
      case 'delayFrames':
        t.delayFramesFor(fault.amount, DELAY_WINDOW_MS);
        return undefined;
      case 'rest500':
        t.failNextRest(fault.amount);
        return undefined;
      case 'restLatency':
        t.delayNextRest(fault.amount);
        return undefined;
    }
  }
}
