/**
 * The delay schedule of one connection's outgoing frames: a fixed delay plus a seeded
 * uniform jitter, drawn per frame from the connection's own generator, without reordering
 * (a frame is never due before the frame queued ahead of it). @internal
 */
import { Prng } from '../engine/Prng';

/** A frame delay: `ms`, plus a uniform draw in [0, `jitterMs`) per frame. */
export interface FrameDelaySpec {
  readonly ms: number;
  readonly jitterMs: number;
}

/** No delay at all. */
export const NO_FRAME_DELAY: FrameDelaySpec = Object.freeze({ ms: 0, jitterMs: 0 });

/** True when `spec` delays nothing. */
export function isNoFrameDelay(spec: FrameDelaySpec): boolean {
  return spec.ms <= 0 && spec.jitterMs <= 0;
}

/**
 * The generator of connection `connectionId`'s jitter draws under `seed`: a pure function
 * of both, so each connection's draws depend neither on the others' traffic nor on the
 * order in which connections were opened.
 */
export function jitterPrng(seed: number, connectionId: number): Prng {
  return new Prng((Math.trunc(seed) ^ Math.imul(connectionId, 0x9e3779b9)) >>> 0);
}

/**
 * @example
 * const d = new FrameDelay(7, 1);
 * d.own = { ms: 20, jitterMs: 10 };
 * d.dueAt(0, NO_FRAME_DELAY);   // e.g. 26.1: 20 + a draw in [0, 10)
 * d.dueAt(0, NO_FRAME_DELAY);   // never below the previous due time
 */
export class FrameDelay {
  /** This connection's own delay, added to the one shared by every connection. */
  own: FrameDelaySpec = NO_FRAME_DELAY;
  private lastDueAt = -Infinity;
  private prng: Prng | undefined;

  /**
   * @param seed the feed's jitter seed
   * @param connectionId the connection whose frames this schedules (its draws are its own)
   */
  constructor(
    private readonly seed: number,
    private readonly connectionId: number,
  ) {}

  /** True when `shared` or the own delay delays frames. */
  inForce(shared: FrameDelaySpec): boolean {
    return !isNoFrameDelay(shared) || !isNoFrameDelay(this.own);
  }

  /**
   * The due time of a frame queued at `nowMs`: `nowMs` + the shared delay + the own delay
   * (each `ms` plus its jitter draw; a spec without jitter draws nothing), and never before
   * the due time of the frame before it.
   */
  dueAt(nowMs: number, shared: FrameDelaySpec): number {
    const delay = this.draw(shared) + this.draw(this.own);
    const due = Math.max(nowMs + delay, this.lastDueAt);
    this.lastDueAt = due;
    return due;
  }

  private draw(spec: FrameDelaySpec): number {
    if (spec.jitterMs <= 0) return spec.ms;
    this.prng ??= jitterPrng(this.seed, this.connectionId);
    return spec.ms + this.prng.float() * spec.jitterMs;
  }
}
