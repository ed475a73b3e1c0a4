/** The error of a replay asked for something its recording does not hold. */
import { ExchangeReplicaError, type ErrorContext } from '../errors';

/**
 * A replay from a recording (`RecordingSource`) was asked for a stream, or a REST page, that
 * the recording does not hold: the stream was never subscribed during the recording, or a
 * snapshot page was never fetched. Not a divergence: the recording simply has nothing to
 * give. A replica of such a stream fails with it (its observable errors); `stream` names it.
 */
export class NotRecordedError extends ExchangeReplicaError {
  constructor(message: string, context: ErrorContext = {}) {
    super('ERR_NOT_RECORDED', message, context);
  }
}
