/** The options of a {@link Replayer}, its result and its states. */
import type { Clock } from '../clock';
import type { TornTail } from './chunks';
import type { SessionEnd } from './entries';
import type { RecordingOptions } from './Recording';
import type { Replayer } from './Replayer';

/** Options of {@link Replayer}; `maxChunkBytes` applies when it opens the file (given a path). */
export interface ReplayOptions extends RecordingOptions {
  /**
   * Recorded time per real time: 1 replays at the recorded pace, 10 ten times faster, 0.5
   * half as fast; `Infinity` as fast as possible.
   * @default Infinity
   */
  readonly speed?: number;
  /** Real time the replayer waits for the client to do what the log expects next before reporting a divergence. @default 10000 */
  readonly stallTimeoutMs?: number;
  /** The session of the file to replay, 0 for the first. @default 0 */
  readonly session?: number;
  /**
   * Real time, which pacing at a finite speed and the stall bound wait for and `realMs`
   * measures (the client under replay reads the recorded clock, never this one).
   * @default the system clock
   */
  readonly realClock?: Clock;
}

/** How a replay went. */
export interface ReplayResult {
  /** Inputs delivered. */
  readonly inputs: number;
  /** Feed frames delivered. */
  readonly frames: number;
  /** Entries of the session gone through. */
  readonly entries: number;
  /** Recorded time of the last input delivered, ms since the session began. */
  readonly recordedMs: number;
  /** Real time the replay took from `start()`, ms. */
  readonly realMs: number;
  /** How the recording session ended; undefined when it has no end entry (the process died, or the file is torn). */
  readonly end: SessionEnd | undefined;
  /** The file's unreadable tail, if any (its entries were not replayed). */
  readonly torn: TornTail | undefined;
}

/**
 * Where a replay is: not started, delivering inputs, or over (every input delivered, a
 * divergence, an error: an invalid chunk or a listener that threw, `stop()`).
 */
export type ReplayState = 'ready' | 'running' | 'ended' | 'diverged' | 'failed' | 'stopped';
