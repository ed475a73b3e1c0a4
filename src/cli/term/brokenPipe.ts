/**
 * A reader that goes away (`exchange-replica watch ... | head -c 100`) is a normal end, not
 * a crash. A write still pending when the reader closes fails later with EPIPE, possibly
 * after the command has finished and removed its own listeners: without a listener that
 * `error` event is an uncaught exception. {@link guardBrokenPipe} installs one permanent
 * listener per stream that ignores EPIPE (the stream is destroyed, nothing more is written,
 * the process ends by itself with its exit code, 0 unless something else failed). @internal
 */

const guarded = new WeakSet<NodeJS.EventEmitter>();

function ignoreEpipe(e: NodeJS.ErrnoException): void {
  if (e.code !== 'EPIPE') throw e;
}

/** Makes EPIPE on `stream` harmless for the rest of the process. Idempotent. */
export function guardBrokenPipe(stream: NodeJS.EventEmitter): void {
  if (guarded.has(stream)) return;
  guarded.add(stream);
  stream.on('error', ignoreEpipe);
}
