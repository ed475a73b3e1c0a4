/**
 * Defaults of the limits a socket enforces on what a server can make it hold: fragments of
 * one message, bytes queued for writing, bytes of the handshake answer's head. They live here
 * (importing nothing) so that both the connection's options and the Node socket, which may be
 * used on its own, read the same values.
 */

/**
 * Default of `ConnectionOptions.maxFragmentsPerMessage`. The feed's messages are at most a
 * few hundred KB, so 1024 fragments leaves a wide margin for a server that fragments them,
 * while a message that never ends is refused after 1024 frames rather than held forever.
 */
export const DEFAULT_MAX_FRAGMENTS_PER_MESSAGE = 1024;

/**
 * Default of `ConnectionOptions.maxQueuedWriteBytes`: 1 MiB. The client writes small commands;
 * a megabyte that the kernel's own buffers could not take means the server stopped reading.
 */
export const DEFAULT_MAX_QUEUED_WRITE_BYTES = 1024 * 1024;

/** Default of `ConnectionOptions.maxHandshakeHeadBytes`: 64 KiB (a real answer head is a few hundred bytes). */
export const DEFAULT_MAX_HANDSHAKE_HEAD_BYTES = 64 * 1024;
