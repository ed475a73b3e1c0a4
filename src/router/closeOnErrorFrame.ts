import type { Connection } from '../connection/Connection';
import { FeedError } from '../errors';
import type { ErrorFrame, FeedErrorCode } from '../protocol';

const FEED_UNAVAILABLE: FeedErrorCode = 'FEED_UNAVAILABLE';
const HEARTBEAT_TIMEOUT: FeedErrorCode = 'HEARTBEAT_TIMEOUT';

/**
 * The error frames after which the server closes the socket, whatever their request id: the
 * connection is told what to do by a command. `FEED_UNAVAILABLE` is final on a fresh socket
 * (the deployment has no feed); on a socket that was serving (a deploy, an incident) it is a
 * drop like any other, and the next socket decides. `HEARTBEAT_TIMEOUT`: the server closes
 * right after; the connection reconnects as after any drop, with this reason.
 * @param frame one for which {@link closesSocket} holds.
 * @param served whether the socket delivered another frame before this one.
 */
export function closeOnErrorFrame(connection: Pick<Connection, 'url' | 'fail' | 'reconnect' | 'expectClose'>, frame: ErrorFrame, served: boolean): void {
  if (frame.code === FEED_UNAVAILABLE) {
    if (served) {
      connection.reconnect(`server sent ${FEED_UNAVAILABLE} on a connection that was serving (${frame.error}): reconnecting`);
    } else {
      const message = `the streaming feed at ${connection.url} is not available on this deployment (server: ${frame.error}); not reconnecting, REST calls are unaffected`;
      connection.fail(new FeedError(FEED_UNAVAILABLE, message), `server sent ${FEED_UNAVAILABLE}`);
    }
  } else if (frame.code === HEARTBEAT_TIMEOUT) {
    connection.expectClose(`server sent ${HEARTBEAT_TIMEOUT}: ${frame.error}`);
  }
}

/** Whether the server closes the socket after this error frame. */
export function closesSocket(frame: ErrorFrame): boolean {
  return frame.code === FEED_UNAVAILABLE || frame.code === HEARTBEAT_TIMEOUT;
}
