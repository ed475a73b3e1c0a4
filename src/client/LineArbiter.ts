/**
 * Line arbitration of one stream (channel and scope) fed by several lines: the same
 * sequenced stream on each line, each `seq` taken from the first line that brings it, a hole
 * on one line filled from another. What the replica behind it sees is one stream, exactly as
 * one line would give it, with fewer holes: a `subscribed` when the first line is up, a
 * `disconnected` when the last one went down, each `seq` once and in order.
 *
 * - An update at or below the last one passed on (another line brought it first) is dropped.
 * - An update above the next one expected (a hole on its line) is held for `gapWindowMs`
 *   (bounded: `maxHeldUpdates`, `maxHeldBytes`), while the other lines may fill the hole;
 *   when the window ends unfilled, the held updates are passed on as they are and the
 *   replica sees the jump (and resyncs, as with one line).
 * - `resync_required` on one line (it skipped updates, or sent one that could not be
 *   decoded) only marks that line as owing a jump; the replica is told only when every line
 *   that is up owes one (none can vouch for the stream).
 * - A line whose own `seq` goes back (a numbering that restarted, or a repeat) is passed on
 *   as it is: the replica resyncs, as with one line.
 */
import type { Clock, Timer } from '../clock';
import type { SourceEvent, SourceListener, SourceUpdate } from '../replicas/ReplicaSource';
import { DEFAULT_UPDATE_SIZE } from '../replicas/UpdateBuffer';

/** What one line did for the streams it carried (see {@link LineArbiter.stats}). */
export interface LineCounts {
  /** Updates this line brought first (passed on from it). */
  won: number;
  /** Updates this line brought after another line did (dropped). */
  late: number;
  /** Holes this line had that another line filled within the window. */
  gapsFilled: number;
}

/** What arbitration spared the replicas (over every stream, and per stream). */
export interface StreamCounts {
  /** Holes filled by another line, and `resync_required` of one line not passed on: each a resync the replica did not need. */
  resyncsAvoided: number;
  /** Windows that ended with a hole no line filled (the replica saw the jump). */
  gapsUnfilled: number;
}

/** The arbitration's counts: per line, in all, and per stream key. */
export interface ArbitrationCounts extends StreamCounts {
  readonly lines: readonly LineCounts[];
  readonly streams: Map<string, StreamCounts>;
}

export interface LineArbiterOptions {
  /** How long (ms) an update after a hole waits for another line to fill it. */
  readonly gapWindowMs: number;
  /** Most updates held while a hole waits to be filled. */
  readonly maxHeldUpdates: number;
  /** Most bytes of updates held (frame lengths) while a hole waits to be filled. */
  readonly maxHeldBytes: number;
  readonly clock: Clock;
}

interface Line {
  up: boolean;
  /** The line's own last seq since it was subscribed. */
  lastSeq?: bigint;
  /** It said it skipped updates and has not brought one since. */
  owesJump: boolean;
}

export class LineArbiter {
  private readonly lines: Line[];
  /** The last seq passed on; undefined when the next update starts a run (after `subscribed` or `resync_required`). */
  private passed?: bigint;
  /** After the replica was told to resync: what was passed on before (another line's copy of it is dropped). */
  private floor?: bigint;
  private upstream = false;
  private generation = 0;
  private held: SourceUpdate[] = [];
  /** The line each held update came from (same index as `held`). */
  private heldFrom: number[] = [];
  private heldBytes = 0;
  private window?: Timer;

  constructor(
    lineCount: number,
    private readonly out: SourceListener,
    private readonly options: LineArbiterOptions,
    private readonly counts: ArbitrationCounts,
    /** This stream's share of the counts. */
    private readonly stream: StreamCounts,
  ) {
    this.lines = Array.from({ length: lineCount }, () => ({ up: false, owesJump: false }));
  }

  /** One event from line `i`. */
  next(i: number, event: SourceEvent): void {
    const line = this.lines[i]!;
    switch (event.kind) {
      case 'update':
        return this.onUpdate(i, line, event);
      case 'subscribed':
        line.up = true;
        line.lastSeq = undefined;
        line.owesJump = false;
        if (this.upstream) return;
        this.upstream = true;
        this.passed = undefined;
        this.floor = undefined;
        this.out.next({ kind: 'subscribed', subscriptionId: event.subscriptionId, generation: ++this.generation });
        return;
      case 'disconnected':
        line.up = false;
        line.lastSeq = undefined;
        line.owesJump = false;
        if (!this.upstream || this.lines.some((l) => l.up)) return this.settleOwed();
        this.upstream = false;
        this.dropHeld();
        this.out.next(event);
        return;
      case 'resync_required':
        if (!line.up) return;
        line.owesJump = true;
        return this.settleOwed(event.reason);
    }
  }

  /** Stops the window's timer. */
  close(): void {
    this.dropHeld();
  }

  private onUpdate(i: number, line: Line, u: SourceUpdate): void {
    if (!line.up || !this.upstream) return;
    const own = line.lastSeq;
    const owed = line.owesJump;
    line.lastSeq = u.seq;
    line.owesJump = false;
    if (own !== undefined && u.seq <= own) {
      // This line went back: a restarted numbering, or a repeat. Passed on: the replica resyncs.
      this.flushHeld();
      return this.pass(i, u);
    }
    const passed = this.passed;
    if (passed === undefined && this.floor !== undefined && u.seq <= this.floor) {
      this.counts.lines[i]!.late++;
      return;
    }
    // The first update of a run, after a hole its line announced: another line may still bring what is missing.
    if (passed === undefined && owed && this.lines.some((l, k) => k !== i && l.up)) return this.hold(i, u);
    if (passed === undefined || u.seq === passed + 1n) {
      this.pass(i, u);
      return this.drainHeld();
    }
    if (u.seq <= passed) {
      this.counts.lines[i]!.late++;
      return;
    }
    this.hold(i, u);
  }

  private pass(i: number, u: SourceUpdate): void {
    this.passed = u.seq;
    this.counts.lines[i]!.won++;
    this.out.next(u);
  }

  /** Holds an update above a hole, in seq order, once per seq. */
  private hold(i: number, u: SourceUpdate): void {
    let at = this.held.length;
    while (at > 0 && this.held[at - 1]!.seq > u.seq) at--;
    if (at > 0 && this.held[at - 1]!.seq === u.seq) {
      this.counts.lines[i]!.late++;
      return;
    }
    this.held.splice(at, 0, u);
    this.heldFrom.splice(at, 0, i);
    this.heldBytes += u.size ?? DEFAULT_UPDATE_SIZE;
    if (this.held.length > this.options.maxHeldUpdates || this.heldBytes > this.options.maxHeldBytes) return this.flushHeld();
    this.window ??= this.options.clock.setTimer(() => this.onWindowEnd(), this.options.gapWindowMs, { unref: true });
  }

  /** Passes on the held updates that now follow; a hole filled this way cost nothing. */
  private drainHeld(): void {
    const passed0 = this.passed;
    if (passed0 === undefined) return;
    while (this.held.length > 0) {
      const first = this.held[0]!;
      const passed = this.passed ?? passed0;
      if (first.seq > passed + 1n) return;
      const from = this.heldFrom[0]!;
      this.shiftHeld();
      if (first.seq <= passed) continue;
      this.counts.lines[from]!.gapsFilled++;
      this.avoided();
      this.pass(from, first);
    }
    this.cancelWindow();
  }

  private onWindowEnd(): void {
    this.window = undefined;
    if (this.held.length === 0) return;
    this.counts.gapsUnfilled++;
    this.stream.gapsUnfilled++;
    this.flushHeld();
  }

  /** Passes on every held update as it is (the replica sees the jump). */
  private flushHeld(): void {
    this.cancelWindow();
    const held = this.held;
    const from = this.heldFrom;
    this.held = [];
    this.heldFrom = [];
    this.heldBytes = 0;
    for (let k = 0; k < held.length; k++) {
      const u = held[k]!;
      if (this.passed !== undefined && u.seq <= this.passed) continue;
      this.pass(from[k]!, u);
    }
  }

  /**
   * The replica is told of skipped updates only when every line that is up owes a jump: then
   * the next update of any line starts a new run (the replica resyncs from it).
   */
  private settleOwed(reason?: string): void {
    const up = this.lines.filter((l) => l.up);
    if (!this.upstream || up.length === 0 || !up.every((l) => l.owesJump)) {
      if (reason !== undefined) this.avoided();
      return;
    }
    for (const l of up) l.owesJump = false;
    this.out.next({ kind: 'resync_required', reason: `every line skipped updates (${reason ?? 'gap'})` });
    this.flushHeld();
    this.floor = this.passed ?? this.floor;
    this.passed = undefined;
  }

  private avoided(): void {
    this.counts.resyncsAvoided++;
    this.stream.resyncsAvoided++;
  }

  private shiftHeld(): void {
    const u = this.held.shift()!;
    this.heldFrom.shift();
    this.heldBytes -= u.size ?? DEFAULT_UPDATE_SIZE;
  }

  private dropHeld(): void {
    this.cancelWindow();
    this.held = [];
    this.heldFrom = [];
    this.heldBytes = 0;
  }

  private cancelWindow(): void {
    this.window?.cancel();
    this.window = undefined;
  }
}
