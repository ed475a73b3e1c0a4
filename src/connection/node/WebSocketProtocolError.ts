/**
 * A violation of RFC 6455 by the server, or a message over the size limit, seen by
 * `NodeWebSocket`. It is the socket-level cause the connection wraps (like the `ws`
 * package's errors, whose `code`s it reuses so the connection reads both the same way).
 */
export class WebSocketProtocolError extends Error {
  override readonly name = 'WebSocketProtocolError';

  /**
   * @param code stable code, the `ws` package's where it has one (e.g. `WS_ERR_UNSUPPORTED_MESSAGE_LENGTH`)
   * @param closeCode the close code the client sends when it fails the connection for it (1002, 1007, 1009)
   */
  constructor(
    message: string,
    readonly code: string,
    readonly closeCode: number,
  ) {
    super(message);
  }
}
