/**
 * What the frames of one subscription in one chunk of a recording decode to, as the router
 * would have decoded them live: updates (the library's fast decoder, the channel's schema
 * otherwise) with the recorded receive time, `resync_required`, and a `resync_required`
 * for a frame that cannot be read (the router resyncs the stream it names). The frames of
 * other subscriptions are skipped by their first bytes, undecoded. @internal
 */
import { CHANNELS, fastDecodeServerFrame, frameSubscriptionId, validateWithDrift, type ChannelName } from '../protocol';
import type { SourceResyncRequired, SourceUpdate } from '../replicas';

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
}

const SUB_KEY = '\\"subscription_id\\":\\"';
const INVALID: SourceResyncRequired = Object.freeze({ kind: 'resync_required', reason: 'invalid_update' });

/** Every event of the subscription in the chunk, in order. */
export function decodeFrames(q: FrameQuery): DataItem[] {
  const out: DataItem[] = [];
  const { lines, socket } = q;
  const sock = String(socket);
  for (let j = q.firstLine; j < lines.length; j++) {
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
    frame ??= frameText(line, c2);
    const at = Number(line.slice(5, c1));
    const event = frame === undefined ? INVALID : decodeEvent(frame, q.channel, receivedAt(lines[j + 1], at, q.wallNs));
    if (event !== undefined) out.push({ order: q.baseOrder + j, at, event });
  }
  return out;
}

/** The frame's text: the JSON string of the entry, unescaped (quotes only: a plain replace). */
function frameText(line: string, c2: number): string | undefined {
  if (line.endsWith('"]')) {
    const inner = line.slice(c2 + 2, line.length - 2);
    if (!/\\[^"]/.test(inner)) return inner.replaceAll('\\"', '"');
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
  return { kind: 'update', seq: uint64(frame.seq), timestampNs: BigInt(frame.timestamp_ns), receivedAtNs, data, size: text.length };
}

function uint64(digits: string): bigint {
  return digits.length <= 15 ? BigInt(+digits) : BigInt(digits);
}
