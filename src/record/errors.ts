/** The errors of recording and replay. */
import { ExchangeReplicaError, type ErrorContext } from '../errors';

/**
 * A file that is not a recording (or of a format version this library cannot read), that
 * cannot be read, or that is damaged or was edited (anywhere but a torn end): `chunk` and
 * `offset` name the chunk at fault when there is one.
 */
export class RecordingFormatError extends ExchangeReplicaError {
  /** The chunk at fault (0 for the file's first), when one is. */
  readonly chunk: number | undefined;
  /** Where that chunk starts in the file, in bytes. */
  readonly offset: number | undefined;

  constructor(message: string, context: ErrorContext = {}, options: { cause?: unknown; chunk?: number; offset?: number } = {}) {
    super('ERR_RECORDING_INVALID', message, context, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.chunk = options.chunk;
    this.offset = options.offset;
  }
}

/**
 * The client under replay did something the recording does not have at that point (read the
 * clock where the recording has a socket frame, asked another URL, cancelled a timer that
 * fired during the recording...), or did nothing while the recording expected it to act:
 * from there on, its states would no longer be the recorded ones. `position` is the number
 * (0-based) of the recording's entry where the two parted.
 */
export class ReplayDivergenceError extends ExchangeReplicaError {
  constructor(
    message: string,
    /** Index of the entry of the session where the replay diverged. */
    readonly position: number,
    /** What the recording has there. */
    readonly expected: string,
    /** What the client did instead. */
    readonly actual: string,
  ) {
    super('ERR_REPLAY_DIVERGED', message);
  }
}
