/** The IPC messages between the socket benchmark and its sender process. */
import type { StreamSpec } from '../book/deltaStream';

/**
 * How the sender writes the frames due at a tick: `batched` corks them into one socket write
 * (frames arrive in bursts); `perFrame` writes each frame on its own (one TCP segment each,
 * the way a feed that sends as events happen does).
 */
export type SenderStyle = 'batched' | 'perFrame';

export type SenderCommand =
  /** Generate the stream, listen on 127.0.0.1:0. `anchorNs`: wall-clock ns minus hrtime ns (decimal). */
  | { cmd: 'init'; anchorNs: string; stream: StreamSpec }
  /**
   * Send the stream from seq 1 to the subscribed client at `rate` frames/s, at most
   * `maxFrames`, the frames due sent every `tickMs` (default 1).
   */
  | { cmd: 'start'; rate: number; maxFrames: number; style: SenderStyle; tickMs?: number }
  | { cmd: 'stop' }
  | { cmd: 'exit' };

export type SenderReply =
  | { type: 'ready'; port: number }
  | { type: 'started' }
  /** `maxBufferedBytes`: the largest backlog the socket held (the client falling behind). */
  | { type: 'stopped'; sent: number; maxBufferedBytes: number }
  | { type: 'error'; message: string };
