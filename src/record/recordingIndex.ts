/**
 * The index a replay from a recording seeks with, built as far as the replay has read (a
 * seek to the middle reads the first half once, never the frames' contents): per chunk, the
 * recorded time of its first and last input (the chunks by time); per stream, its
 * subscriptions (`epochs`: from the server's `subscribed` to the socket's close or the
 * unsubscribe) and the REST answers of every request, by URL (a stream's snapshots are the
 * answers to its snapshot operation). Update frames are told apart by their first bytes and
 * skipped: only the rare control entries are parsed. Every entry is numbered (`order`: its
 * place in the file), which orders everything a replay delivers. @internal
 */
import { checkSubscription } from '../router/checkSubscription';
import { CHANNELS, encodeQuery, fillPath, OPERATIONS, streamKey, validateParams, type ChannelName, type OperationName, type ParamValues, type Scope } from '../protocol';
import type { ChunkStore } from './chunkStore';
import { RECORDING_FORMAT, RECORDING_VERSION, type SessionEnd, type SessionHeader } from './entries';
import { RecordingFormatError } from './errors';

/** One subscription of a stream during the recording. */
export interface Epoch {
  readonly key: string;
  readonly socket: number;
  readonly subscriptionId: string;
  /** The `subscribed` frame's entry and time. */
  readonly startOrder: number;
  readonly startAt: number;
  /** Where it ended (Infinity while unknown, or when it lasted to the end of the session). */
  endOrder: number;
  endAt: number;
  /** `disconnected`: the socket closed; `unsubscribed`: the client let it go. */
  endKind: 'disconnected' | 'unsubscribed' | undefined;
}

/** One recorded HTTP answer, with the request it answered. */
export interface RecordedAnswer {
  readonly order: number;
  readonly at: number;
  /** The entry of the request. */
  readonly requestOrder: number;
  readonly url: string;
  readonly status: number;
  readonly body: string;
}

/** A stream subscribed during the recording. */
export interface RecordedStream {
  readonly key: string;
  readonly channel: ChannelName;
  readonly scope: Scope;
  /** The URL of its snapshot's first page (its answers are its snapshots). */
  readonly snapshotUrl: string;
  readonly epochs: Epoch[];
}

interface ChunkSpan {
  /** Index of the chunk in the file. */
  readonly chunk: number;
  /** Order of its first line. */
  readonly baseOrder: number;
  firstAt: number;
  lastAt: number;
  frames: number;
}

const UPDATE_FRAME = '"{\\"type\\":\\"update\\"';

/** Recorded time of an input line (`["x",AT,...`). */
export function inputAt(line: string): number {
  return Number(line.slice(5, line.indexOf(',', 5)));
}

export class RecordingIndex {
  readonly header: SessionHeader;
  /** The session's end entry, once read (undefined: not reached, or the session has none). */
  end: SessionEnd | undefined;
  /** True once the whole session was read. */
  complete = false;
  /** Recorded time of the last input read. */
  lastAt = 0;
  private readonly spans: ChunkSpan[] = [];
  private readonly baseOrders: number[] = [];
  private readonly streams = new Map<string, RecordedStream>();
  private readonly answers = new Map<string, RecordedAnswer[]>();
  private readonly requests = new Map<number, { url: string; order: number }>();
  private readonly subscribing = new Map<string, RecordedStream>();
  private readonly liveEpochs = new Map<string, Epoch>();
  private readonly baseUrl: string;
  private nextChunk: number;
  /** First line of the session in its first chunk. */
  private readonly firstLine: number;

  /**
   * @param session the session of the file, 0 for the first
   * @throws RecordingFormatError when there is no such session or its header is not one of a recording
   */
  constructor(
    private readonly store: ChunkStore,
    session: number,
  ) {
    const recording = store.recording;
    let base = 0;
    for (const c of recording.chunks) {
      this.baseOrders.push(base);
      base += c.entries;
    }
    let seen = -1;
    for (let i = 0; i < recording.chunks.length; i++) {
      const lines = store.get(i)!.lines;
      for (let j = 0; j < lines.length; j++) {
        if (!lines[j]!.startsWith('["h",') || ++seen !== session) continue;
        this.header = parseHeader(lines[j]!, recording.name);
        this.baseUrl = new URL(this.header.restUrl).href.replace(/\/+$/, '');
        this.nextChunk = i;
        this.firstLine = j + 1;
        return;
      }
    }
    throw new RecordingFormatError(`${recording.name} has no session ${session} (it holds ${seen + 1}, numbered from 0)`);
  }

  /** The URL a REST call of `operation` with `params` asks (as the REST client builds it); undefined for parameters it would refuse. */
  operationUrl(operation: OperationName, params: ParamValues): string | undefined {
    const op = OPERATIONS[operation];
    const checked = validateParams(op.params, op.rules, params);
    return checked.ok ? this.baseUrl + fillPath(op.path, checked.value) + encodeQuery(op.params, checked.value) : undefined;
  }

  /** The stream of `key` as read so far; reads on to the end of the session when it was not seen yet. */
  stream(key: string): RecordedStream | undefined {
    while (!this.streams.has(key) && this.scanNext());
    return this.streams.get(key);
  }

  /** Every stream subscribed during the session (reads the whole session). */
  allStreams(): readonly RecordedStream[] {
    while (this.scanNext());
    return [...this.streams.values()];
  }

  /** The recorded answers to `url`, in order, as read so far. */
  answersTo(url: string): readonly RecordedAnswer[] {
    return this.answers.get(url) ?? EMPTY;
  }

  /** Reads chunk `i` (and those before it) unless already read; false when `i` is past the session's end. */
  ensureRead(i: number): boolean {
    while (this.nextChunk <= i && this.scanNext());
    const first = this.spans[0]?.chunk ?? 0;
    const last = this.spans[this.spans.length - 1]?.chunk ?? -1;
    return i >= first && i <= last;
  }

  /** The chunk holding the entry `order`; undefined past the session's read part. */
  chunkOf(order: number): number | undefined {
    let lo = 0;
    let hi = this.spans.length - 1;
    if (hi < 0 || order < this.spans[0]!.baseOrder) return this.spans[0]?.chunk;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.spans[mid]!.baseOrder <= order) lo = mid;
      else hi = mid - 1;
    }
    return this.spans[lo]!.chunk;
  }

  /** Order of the first line of chunk `i`. */
  baseOrder(i: number): number {
    return this.baseOrders[i] ?? Number.POSITIVE_INFINITY;
  }

  /** First line of the session in chunk `i` (0 but for its first chunk). */
  firstLineIn(i: number): number {
    return i === this.spans[0]?.chunk ? this.firstLine : 0;
  }

  /**
   * The order of the first input recorded at or after `atMs` (the end of the session when
   * none): reads the chunks up to it (the chunks by time, then one chunk's lines).
   */
  orderAt(atMs: number): number {
    while ((this.spans.length === 0 || !(this.spans[this.spans.length - 1]!.lastAt >= atMs)) && this.scanNext());
    const span = this.spans.find((s) => s.lastAt >= atMs);
    if (span === undefined) return this.endOrder();
    const lines = this.store.get(span.chunk)!.lines;
    for (let j = this.firstLineIn(span.chunk); j < lines.length; j++) {
      if (isInputLine(lines[j]!) && inputAt(lines[j]!) >= atMs) return span.baseOrder + j;
    }
    return span.baseOrder + lines.length;
  }

  /** Order just past the session's last entry read. */
  endOrder(): number {
    const last = this.spans[this.spans.length - 1];
    return last === undefined ? 0 : last.baseOrder + (this.store.recording.chunks[last.chunk]?.entries ?? 0);
  }

  /**
   * The first clock read (`n` entry) logged after entry `order` and before the next input:
   * what the recorded client read right after that input (e.g. a snapshot answer's receive
   * stamp); undefined when there is none.
   */
  clockReadAfter(order: number): bigint | undefined {
    const first = this.chunkOf(order);
    if (first === undefined) return undefined;
    // The read is a few entries on: into the next chunk at most (a flush may cut anywhere).
    for (let c = first; c <= first + 1 && this.ensureRead(c); c++) {
      const lines = this.store.get(c)!.lines;
      for (let j = Math.max(order + 1 - this.baseOrder(c), this.firstLineIn(c)); j < lines.length; j++) {
        const line = lines[j]!;
        if (line.startsWith('["n","')) {
          const digits = line.slice(6, line.indexOf('"', 6));
          return /^\d{1,20}$/.test(digits) ? BigInt(digits) : undefined;
        }
        if (isInputLine(line) || line[2] === 'h' || line[2] === 'z') return undefined;
      }
    }
    return undefined;
  }

  /** Frames (`m` entries) of the session from chunk `fromChunk` on, as read so far. */
  framesFrom(fromChunk: number): number {
    let n = 0;
    for (const s of this.spans) if (s.chunk >= fromChunk) n += s.frames;
    return n;
  }

  /** Reads the next chunk of the session; false when the session is over. */
  private scanNext(): boolean {
    if (this.complete) return false;
    const i = this.nextChunk;
    const cached = this.store.get(i);
    if (cached === undefined) {
      this.complete = true;
      return false;
    }
    this.nextChunk++;
    const lines = cached.lines;
    const base = this.baseOrders[i]!;
    const span: ChunkSpan = { chunk: i, baseOrder: base, firstAt: Number.NaN, lastAt: Number.NaN, frames: 0 };
    this.spans.push(span);
    for (let j = this.firstLineIn(i); j < lines.length; j++) {
      const line = lines[j]!;
      const tag = line[2];
      if (tag === 'h' || tag === 'z') {
        if (tag === 'z') this.end = (JSON.parse(line) as [string, SessionEnd])[1];
        this.complete = true;
        return true;
      }
      if (!isInputLine(line)) {
        if (tag === 's' || tag === 'F') this.onOutput(line, base + j);
        continue;
      }
      const at = inputAt(line);
      if (Number.isNaN(span.firstAt)) span.firstAt = at;
      span.lastAt = at;
      this.lastAt = at;
      if (tag === 'm') {
        span.frames++;
        const c1 = line.indexOf(',', 5);
        const c2 = line.indexOf(',', c1 + 1);
        if (!line.startsWith(UPDATE_FRAME, c2 + 1)) this.onControlFrame(line, base + j, at);
      } else if (tag === 'a' || tag === 'f' || tag === 'c') {
        this.onInput(line, base + j, at);
      }
    }
    return true;
  }

  /** A frame the client sent (`s`: subscribe, unsubscribe) or a request it issued (`F`). */
  private onOutput(line: string, order: number): void {
    const e = JSON.parse(line) as readonly [string, number, string];
    if (e[0] === 'F') {
      this.requests.set(e[1], { url: e[2], order });
      return;
    }
    const frame = parseObject(e[2]);
    if (frame?.type === 'subscribe' && typeof frame.channel === 'string') {
      const { type: _t, request_id: _r, channel, ...scope } = frame;
      const checked = checkSubscription(channel, scope);
      if (!checked.ok) return;
      const key = streamKey(checked.channel, checked.scope);
      let stream = this.streams.get(key);
      if (stream === undefined) {
        const def = CHANNELS[checked.channel];
        const url = this.operationUrl(def.snapshot, def.snapshotParams(checked.scope)) ?? '';
        stream = { key, channel: checked.channel, scope: checked.scope, snapshotUrl: url, epochs: [] };
        this.streams.set(key, stream);
      }
      this.subscribing.set(`${e[1]}:${String(frame.request_id)}`, stream);
    } else if (frame?.type === 'unsubscribe') {
      // The router forgets the subscription when it asks: later frames of it are not delivered.
      this.endEpoch(`${e[1]}:${String(frame.subscription_id)}`, order, Number.NaN, 'unsubscribed');
    }
  }

  /** A frame other than an update: a subscription starts or ends. */
  private onControlFrame(line: string, order: number, at: number): void {
    const e = JSON.parse(line) as readonly [string, number, number, string];
    const frame = parseObject(e[3]);
    if (frame?.type === 'subscribed') {
      const stream = this.subscribing.get(`${e[2]}:${String(frame.request_id)}`);
      if (stream === undefined) return;
      const epoch: Epoch = { key: stream.key, socket: e[2], subscriptionId: String(frame.subscription_id), startOrder: order, startAt: at, endOrder: Number.POSITIVE_INFINITY, endAt: Number.POSITIVE_INFINITY, endKind: undefined };
      stream.epochs.push(epoch);
      this.liveEpochs.set(`${e[2]}:${epoch.subscriptionId}`, epoch);
    }
  }

  /** An HTTP answer or failure, or a socket that closed. */
  private onInput(line: string, order: number, at: number): void {
    const e = JSON.parse(line) as readonly [string, number, number, number, string];
    if (e[0] === 'c') {
      for (const [id, epoch] of this.liveEpochs) if (epoch.socket === e[2]) this.endEpoch(id, order, at, 'disconnected');
      return;
    }
    const request = this.requests.get(e[2]);
    this.requests.delete(e[2]);
    if (request === undefined || e[0] !== 'a') return;
    const answer: RecordedAnswer = { order, at, requestOrder: request.order, url: request.url, status: e[3], body: e[4] };
    const list = this.answers.get(request.url);
    if (list === undefined) this.answers.set(request.url, [answer]);
    else list.push(answer);
  }

  private endEpoch(id: string, order: number, at: number, kind: 'disconnected' | 'unsubscribed'): void {
    const epoch = this.liveEpochs.get(id);
    if (epoch === undefined) return;
    this.liveEpochs.delete(id);
    epoch.endOrder = order;
    epoch.endAt = Number.isNaN(at) ? this.lastAt : at;
    epoch.endKind = kind;
  }
}

const EMPTY: readonly RecordedAnswer[] = [];

const INPUT_TAGS = 'omceaft';

/** True for an input entry's line (`o`, `m`, `c`, `e`, `a`, `f`, `t`). */
export function isInputLine(line: string): boolean {
  return INPUT_TAGS.includes(line[2]!);
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function parseHeader(line: string, name: string): SessionHeader {
  let h: Partial<SessionHeader> | undefined;
  try {
    h = (JSON.parse(line) as [string, Partial<SessionHeader>])[1];
  } catch {
    h = undefined;
  }
  if (typeof h !== 'object' || h === null || h.format !== RECORDING_FORMAT) throw new RecordingFormatError(`${name}: a session header is not one of exchange-replica`);
  if (h.version !== RECORDING_VERSION) throw new RecordingFormatError(`${name}: recording format version ${String(h.version)}, this library reads version ${RECORDING_VERSION}`);
  return h as SessionHeader;
}
