/**
 * What the frames of one subscription in one chunk of a recording decode to, as the router
 * would have decoded them live: updates (a `book` update of the compact form read in place,
 * recordedBookFrame.ts; else the library's fast decoder, the channel's schema otherwise) with the recorded receive time, `resync_required`, and a `resync_required`
 * for a frame that cannot be read (the router resyncs the stream it names). The frames of
 * other subscriptions are skipped by their first bytes, undecoded. @internal
 */
import { CHANNELS, fastDecodeServerFrame, frameSubscriptionId, validateWithDrift, type ChannelName } from '../protocol';
import type { SourceResyncRequired, SourceUpdate } from '../replicas';
import { readRecordedBookUpdate } from './recordedBookFrame';
import { uint64FromDigits } from '../protocol/scalars';

/** One event of a subscription, at its place (`order`) and recorded time (`at`, ms). */
export interface DataItem {
  readonly order: number;
  readonly at: number;
  readonly event: SourceUpdate | SourceResyncRequired;
}

/** Where the frames of a chunk are, and whose frames are wanted. */
export interface FrameQuery {
  readonly lines: readonly string[];
  /** Order of the chunk's first line. */
  readonly baseOrder: number;
  /** First line of the session in the chunk. */
  readonly firstLine: number;
  readonly socket: number;
  readonly subscriptionId: string;
  readonly channel: ChannelName;
  /** The recording's wall-clock ns at a recorded time (when no clock read follows a frame). */
  readonly wallNs: (atMs: number) => bigint;
  /**
   * The first line of the next chunk: the clock read that follows a chunk's last frame is
   * there (a chunk ends wherever a flush cut the log). Undefined when there is none.
   */
  readonly nextChunkFirstLine?: () => string | undefined;
}

const SUB_KEY = '\\"subscription_id\\":\\"';
const INVALID: SourceResyncRequired = Object.freeze({ kind: 'resync_required', reason: 'invalid_update' });

/** Every event of the subscription in the chunk, in order. */
export function decodeFrames(q: FrameQuery): DataItem[] {
  const out: DataItem[] = [];
  for (let item = nextFrameEvent(q, q.firstLine); item !== undefined; item = nextFrameEvent(q, item.order - q.baseOrder + 1)) out.push(item);
  return out;
}

/**
 * The first event of the subscription in the chunk from line `from` on (the line is
 * `item.order - q.baseOrder`: go on from the one after it); undefined when there is none.
 * Decodes that frame only: a replay decodes each frame when it comes to it, so nothing
 * decoded outlives its delivery (a chunk's events decoded ahead would live through many
 * minor collections and be copied to the old generation).
 */
export function nextFrameEvent(q: FrameQuery, from: number): DataItem | undefined {
  const { lines, socket } = q;
  const sock = String(socket);
  for (let j = from < q.firstLine ? q.firstLine : from; j < lines.length; j++) {
    const line = lines[j]!;
    if (line.charCodeAt(2) !== 109 /* m */) {
      if (line.charCodeAt(2) === 104 /* h */ || line.charCodeAt(2) === 122 /* z */) break;
      continue;
    }
    const c1 = line.indexOf(',', 5);
    const c2 = line.indexOf(',', c1 + 1);
    if (line.length - c1 - 1 < sock.length || !line.startsWith(sock, c1 + 1) || c2 !== c1 + 1 + sock.length) continue;
    // Compact frames name their subscription near the start: others' are skipped unread.
    const k = line.indexOf(SUB_KEY, c2);
    let frame: string | undefined;
    if (k >= 0 && k < c2 + 64) {
      const idAt = k + SUB_KEY.length;
      if (!line.startsWith(q.subscriptionId, idAt) || !line.startsWith('\\"', idAt + q.subscriptionId.length)) continue;
    } else {
      frame = frameText(line, c2);
      if (frame === undefined || frameSubscriptionId(frame) !== q.subscriptionId) continue;
    }
    const at = Number(line.slice(5, c1));
    if (frame === undefined && q.channel === 'book' && line.charCodeAt(c2 + 1) === 34 /* " */ && line.endsWith('"]')) {
      // The common case, read in place: the same values the general path below would give.
      const book = readRecordedBookUpdate(line, c2 + 2, line.length - 2);
      if (book !== undefined && book.subscriptionId === q.subscriptionId) {
        const event: SourceUpdate = { kind: 'update', seq: uint64FromDigits(book.seq), timestampNs: BigInt(book.timestampNs), receivedAtNs: receivedAt(j + 1 < lines.length ? lines[j + 1] : q.nextChunkFirstLine?.(), at, q.wallNs), data: book.data, size: book.size };
        return { order: q.baseOrder + j, at, event };
      }
    }
    frame ??= frameText(line, c2);
    const event = frame === undefined ? INVALID : decodeEvent(frame, q.channel, receivedAt(j + 1 < lines.length ? lines[j + 1] : q.nextChunkFirstLine?.(), at, q.wallNs));
    if (event !== undefined) return { order: q.baseOrder + j, at, event };
  }
  return undefined;
}

/**
 * The frame's text: the entry's fourth value, a JSON string. A text frame's entry ends with
 * it (`...,"<frame>"]`): that string literal alone goes through `JSON.parse` (its escapes
 * undone natively, exactly; several times faster than replacing `\\"` in a slice and
 * checking for other escapes). Anything else (a binary frame's flag after it, a line that is
 * not so) parses the whole entry.
 */
function frameText(line: string, c2: number): string | undefined {
  if (line.charCodeAt(c2 + 1) === 34 /* " */ && line.endsWith('"]')) {
    try {
      const v: unknown = JSON.parse(line.slice(c2 + 1, line.length - 1));
      if (typeof v === 'string') return v;
    } catch {
      // Not one string literal there: the whole entry decides.
    }
  }
  try {
    const e = JSON.parse(line) as unknown[];
    return typeof e[3] === 'string' ? e[3] : undefined;
  } catch {
    return undefined;
  }
}

/** The clock read logged right after the frame (the router's receive stamp), else the recorded time. */
function receivedAt(next: string | undefined, at: number, wallNs: (atMs: number) => bigint): bigint {
  if (next !== undefined && next.startsWith('["n","')) {
    const end = next.indexOf('"', 6);
    if (end > 6) return BigInt(next.slice(6, end));
  }
  return wallNs(at);
}

function decodeEvent(text: string, channel: ChannelName, receivedAtNs: bigint): SourceUpdate | SourceResyncRequired | undefined {
  const decoded = fastDecodeServerFrame(text);
  if (!decoded.ok) return INVALID;
  const frame = decoded.frame;
  if (frame.type === 'resync_required') return { kind: 'resync_required', reason: frame.reason };
  if (frame.type !== 'update') return undefined;
  if (frame.channel !== channel) return INVALID;
  let data = frame.data;
  if (!decoded.dataValidated) {
    const checked = validateWithDrift(CHANNELS[channel].data, data);
    if (!checked.ok) return INVALID;
    data = checked.value;
  }
  return { kind: 'update', seq: uint64FromDigits(frame.seq), timestampNs: BigInt(frame.timestamp_ns), receivedAtNs, data, size: text.length };
}
