/**
 * A recording file read back: its chunks, its sessions (each client run appended to the file
 * is one session: a header entry, its entries, an end entry when it ended cleanly) and the
 * entries of one session, decompressed chunk by chunk as a reader advances. Every chunk is
 * checked against its checksum when the file is opened: a torn or damaged end (a process or
 * machine that died mid-write) is reported in `torn`, never thrown, and everything before it
 * is read; damage anywhere else refuses the file. A chunk that inflates past `maxChunkBytes`,
 * or holds something that is not an entry, is an error when it is read.
 */
import { readFileSync } from 'node:fs';
import { InvalidParameterError } from '../errors';
import { bufferSource } from './byteSource';
import { scanChunks } from './chunkScan';
import { decodeChunk, decodeChunkValues, DEFAULT_MAX_CHUNK_BYTES, MAX_CHUNK_BYTES_LIMIT, type ChunkRef, type TornTail } from './chunks';
import { isEntry, isEntryTag, isInput, RECORDING_FORMAT, RECORDING_VERSION, type Entry, type SessionEnd, type SessionHeader } from './entries';
import { RecordingFormatError } from './errors';

/** One session of a file. */
export interface SessionInfo {
  /** 0 for the first session of the file. */
  readonly index: number;
  readonly header: SessionHeader;
  /** Its end entry; undefined when the process died (or the file was cut) before it. */
  readonly end: SessionEnd | undefined;
  /** Entries after the header (the end entry excluded). */
  readonly entries: number;
}

/** Options of {@link Recording}. */
export interface RecordingOptions {
  /**
   * Most bytes one chunk may inflate to: past it, reading the chunk is `ERR_RECORDING_INVALID`
   * after inflating that much, never more (a small file cannot inflate to gigabytes). Raise
   * it for a recording of REST answers or frames larger than half of it.
   * @default 134217728 (128 MiB)
   */
  readonly maxChunkBytes?: number;
}

export class Recording {
  readonly chunks: readonly ChunkRef[];
  /** The unreadable end of the file, if any. */
  readonly torn: TornTail | undefined;
  private readonly buf: Buffer;
  private readonly maxChunkBytes: number;
  private sessionList: SessionInfo[] | undefined;

  /**
   * @param bytes the file's content
   * @throws RecordingFormatError when `bytes` are not a recording, or are damaged (or were
   * edited) anywhere but at the end; InvalidParameterError for a bad option.
   */
  constructor(
    bytes: Uint8Array,
    /** For messages: the file's path. */
    readonly name = 'the recording',
    options: RecordingOptions = {},
  ) {
    const max = options.maxChunkBytes ?? DEFAULT_MAX_CHUNK_BYTES;
    if (!Number.isSafeInteger(max) || max < 1 || max > MAX_CHUNK_BYTES_LIMIT) {
      throw new InvalidParameterError(`invalid option 'maxChunkBytes': expected an integer from 1 to ${MAX_CHUNK_BYTES_LIMIT}, got ${String(max)}`, { param: 'maxChunkBytes' });
    }
    this.maxChunkBytes = max;
    const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.buf = buf;
    const { chunks, torn } = scanChunks(bufferSource(buf), name);
    this.chunks = chunks;
    this.torn = torn;
  }

  /**
   * Reads a recording file.
   * @throws RecordingFormatError when it cannot be read, is not a recording, or is damaged
   * anywhere but at the end; InvalidParameterError for a bad option.
   */
  static open(path: string, options: RecordingOptions = {}): Recording {
    let buf: Buffer;
    try {
      buf = readFileSync(path);
    } catch (e) {
      throw new RecordingFormatError(`cannot read the recording ${path}: ${(e as Error).message}`, {}, { cause: e });
    }
    return new Recording(buf, path, options);
  }

  /** Size of the file in bytes. */
  get bytes(): number {
    return this.buf.length;
  }

  /**
   * The lines of chunk `i`; undefined past the last chunk.
   * @throws RecordingFormatError when it cannot be inflated, inflates past `maxChunkBytes`,
   * or does not hold the entries its header says.
   */
  chunkLines(i: number): string[] | undefined {
    const chunk = this.chunks[i];
    if (chunk === undefined) return undefined;
    try {
      return decodeChunk(this.buf, chunk, this.maxChunkBytes);
    } catch (e) {
      throw this.invalid(chunk, (e as Error).message, e);
    }
  }

  /**
   * The entries of chunk `i`; undefined past the last chunk.
   * @throws RecordingFormatError as {@link chunkLines} does, and when a value in it is not an
   * entry (an unknown kind included).
   */
  chunkEntries(i: number): Entry[] | undefined {
    const chunk = this.chunks[i];
    if (chunk === undefined) return undefined;
    let values: unknown[];
    try {
      values = decodeChunkValues(this.buf, chunk, this.maxChunkBytes);
    } catch (e) {
      throw this.invalid(chunk, (e as Error).message, e);
    }
    for (let j = 0; j < values.length; j++) if (!isEntry(values[j])) throw this.notAnEntry(chunk, j, JSON.stringify(values[j]) ?? String(values[j]));
    return values as Entry[];
  }

  /**
   * Every session of the file (decompresses the whole file once; only header and end entries
   * are parsed, the kind of every other one is checked).
   * @throws RecordingFormatError when the entries are not a recording's.
   */
  sessions(): readonly SessionInfo[] {
    if (this.sessionList) return this.sessionList;
    const list: SessionInfo[] = [];
    let current: { header: SessionHeader; entries: number; end: SessionEnd | undefined } | undefined;
    const close = () => {
      if (current) list.push({ index: list.length, header: current.header, end: current.end, entries: current.entries });
      current = undefined;
    };
    for (let i = 0; ; i++) {
      const lines = this.chunkLines(i);
      if (lines === undefined) break;
      for (let j = 0; j < lines.length; j++) {
        const line = lines[j]!;
        if (line.startsWith('["h",')) {
          close();
          current = { header: checkHeader(parseEntry(line, this.name), this.name), entries: 0, end: undefined };
        } else if (line.startsWith('["z",')) {
          if (current) current.end = (parseEntry(line, this.name) as readonly ['z', SessionEnd])[1];
          close();
        } else if (!(line[0] === '[' && line[1] === '"' && line[3] === '"' && isEntryTag(line[2]!))) {
          // Every entry's kind is one character: `["x",...`.
          throw this.notAnEntry(this.chunks[i]!, j, line);
        } else if (current) {
          current.entries++;
        } else {
          throw new RecordingFormatError(`${this.name}: entries before any session header`, {}, { chunk: i, offset: this.chunks[i]!.offset });
        }
      }
    }
    close();
    this.sessionList = list;
    return list;
  }

  /**
   * A reader of the entries of session `index`, from its first entry after the header.
   * @throws RecordingFormatError when there is no such session.
   */
  session(index = 0): SessionCursor {
    let seen = -1;
    for (let i = 0; ; i++) {
      const lines = this.chunkLines(i);
      if (lines === undefined) break;
      for (let j = 0; j < lines.length; j++) {
        if (!lines[j]!.startsWith('["h",')) continue;
        if (++seen === index) {
          const header = checkHeader(parseEntry(lines[j]!, this.name), this.name);
          return new SessionCursor(this, header, i, j + 1);
        }
      }
    }
    const found = seen + 1;
    throw new RecordingFormatError(`${this.name} has no session ${index} (it holds ${found} session${found === 1 ? '' : 's'}, numbered from 0)${this.torn ? `; its end is torn: ${this.torn.reason}` : ''}`);
  }

  private invalid(chunk: ChunkRef, reason: string, cause?: unknown): RecordingFormatError {
    return new RecordingFormatError(`${this.name}: chunk ${chunk.index} (byte ${chunk.offset}) cannot be read: ${reason}`, {}, { cause, chunk: chunk.index, offset: chunk.offset });
  }

  private notAnEntry(chunk: ChunkRef, j: number, text: string): RecordingFormatError {
    let kind = '';
    try {
      const v: unknown = JSON.parse(text);
      if (Array.isArray(v) && typeof v[0] === 'string') kind = `an entry of unknown kind ${JSON.stringify(v[0])}`;
    } catch {
      // Not JSON: said as such below.
    }
    const what = kind || 'not an entry of a recording';
    return new RecordingFormatError(`${this.name}: chunk ${chunk.index} (byte ${chunk.offset}), entry ${j} of the chunk: ${what}: ${text.slice(0, 80)}`, {}, { chunk: chunk.index, offset: chunk.offset });
  }
}

/**
 * Reads the entries of one session in order, with look-ahead. Ends before the session's end
 * entry, the next session's header, or the torn tail. `head`, `advance` and `hasInputAhead`
 * throw `RecordingFormatError` when the chunk they read is invalid (and again if called again).
 */
export class SessionCursor {
  /** Index in the session of the entry at `head()` (0 = the first after the header). */
  position = 0;
  /** The session's end entry, once reached. */
  end: SessionEnd | undefined;
  private buf: Entry[] = [];
  private at = 0;
  private nextChunk: number;
  /** The session's last entry is in `buf` (or was consumed). */
  private complete = false;

  constructor(
    private readonly recording: Recording,
    readonly header: SessionHeader,
    chunk: number,
    line: number,
  ) {
    this.nextChunk = chunk + 1;
    this.append(recording.chunkEntries(chunk) ?? [], line);
  }

  /** The entry at the current position; undefined at the session's end. */
  head(): Entry | undefined {
    if (this.at < this.buf.length) return this.buf[this.at];
    this.fill();
    return this.buf[this.at];
  }

  /** Moves past the head entry. */
  advance(): void {
    if (this.at < this.buf.length || (this.fill(), this.at < this.buf.length)) {
      this.at++;
      this.position++;
    }
  }

  /** True when an input entry is at or after the current position. */
  hasInputAhead(): boolean {
    let i = this.at;
    for (;;) {
      for (; i < this.buf.length; i++) if (isInput(this.buf[i]!)) return true;
      // `fill` drops the consumed entries: indexes move down by `at`.
      const scanned = i - this.at;
      if (!this.fill()) return false;
      i = this.at + scanned;
    }
  }

  /** Decodes the next chunk into `buf` (dropping consumed entries); false when nothing was added. */
  private fill(): boolean {
    if (this.complete) return false;
    if (this.at > 0) {
      this.buf = this.buf.slice(this.at);
      this.at = 0;
    }
    const before = this.buf.length;
    while (!this.complete && this.buf.length === before) {
      // Moves on only past a chunk read: a bad one throws again, never skipped.
      const entries = this.recording.chunkEntries(this.nextChunk);
      this.nextChunk++;
      if (entries === undefined) {
        this.complete = true;
        break;
      }
      this.append(entries, 0);
    }
    return this.buf.length > before;
  }

  private append(entries: readonly Entry[], from: number): void {
    for (let j = from; j < entries.length; j++) {
      const e = entries[j]!;
      if (e[0] === 'h') {
        this.complete = true;
        return;
      }
      if (e[0] === 'z') {
        this.end = e[1];
        this.complete = true;
        return;
      }
      this.buf.push(e);
    }
  }
}

function parseEntry(line: string, name: string): Entry {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (e) {
    throw new RecordingFormatError(`${name}: an entry is not JSON (${(e as Error).message}): ${line.slice(0, 80)}`);
  }
  if (!isEntry(v)) throw new RecordingFormatError(`${name}: not an entry of a recording: ${line.slice(0, 80)}`);
  return v;
}

function checkHeader(e: Entry, name: string): SessionHeader {
  const h = e[1] as Partial<SessionHeader> | undefined;
  if (e[0] !== 'h' || typeof h !== 'object' || h === null || h.format !== RECORDING_FORMAT) throw new RecordingFormatError(`${name}: a session header is not one of exchange-replica`);
  if (h.version !== RECORDING_VERSION) throw new RecordingFormatError(`${name}: recording format version ${String(h.version)}, this library reads version ${RECORDING_VERSION}`);
  return h as SessionHeader;
}
