/** The options of a `RecordingSource` and what its replay ends with. */
import type { Clock } from '../clock';
import type { TornTail } from './chunks';
import type { SessionEnd } from './entries';
import type { RecordingOptions } from './Recording';
import type { ReplayTime } from './replayTime';

/** Options of `RecordingSource`; `maxChunkBytes` applies when it opens the file (given a path). */
export interface RecordingSourceOptions extends RecordingOptions {
  /**
   * Recorded time per real time: 1 the recorded pace, 10 ten times faster; `Infinity` as fast
   * as possible (the clock jumps from event to event).
   * @default Infinity
   */
  readonly speed?: number;
  /**
   * Where to start: ms since the session began, or a `Date` of the recording's wall clock.
   * Each replica starts from its stream's snapshot recorded nearest before it and folds the
   * recorded updates from there.
   * @default 0 (the session's start)
   */
  readonly from?: ReplayTime;
  /** The session of the file, 0 for the first. @default 0 */
  readonly session?: number;
  /** Chunks of the file kept inflated in memory. @default 64 */
  readonly cacheChunks?: number;
  /**
   * Real time, which a replay at a finite speed waits for and `realMs` measures (not the
   * recorded time the client reads: that is `source.clock`).
   * @default the system clock
   */
  readonly realClock?: Clock;
}

/** How a replay from a recording ended. */
export interface RecordingSourceResult {
  /** Updates delivered to subscribers. */
  readonly updates: number;
  /** Events delivered to subscribers (updates, subscribed, resync_required, disconnected, snapshot answers). */
  readonly events: number;
  /** Recorded time reached, ms since the session began. */
  readonly recordedMs: number;
  /** Real time from the first subscription to the end, ms. */
  readonly realMs: number;
  /** How the recording session ended; undefined when it has no end entry (or the replay stopped first). */
  readonly end: SessionEnd | undefined;
  /** The file's unreadable tail, if any (skipped). */
  readonly torn: TornTail | undefined;
  /** `closed`: `close()` was called first; `failed`: a chunk could not be read (`error`). */
  readonly reason: 'ended' | 'closed' | 'failed';
  readonly error?: unknown;
}
