/**
 * A recording file read back: its chunks, its sessions (each client run appended to the file
 * is one session: a header entry, its entries, an end entry when it ended cleanly) and the
 * entries of one session, decompressed chunk by chunk as a reader advances. A torn or damaged
 * end (a process that died mid-write) is reported in `torn`, never thrown: everything before
 * it is read.
 */
import { readFileSync } from 'node:fs';
import { decodeChunk, decodeChunkValues, scanChunks, type ChunkRef, type TornTail } from './chunks';
import { isEntry, isInput, RECORDING_FORMAT, RECORDING_VERSION, type Entry, type SessionEnd, type SessionHeader } from './entries';
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

export class Recording {
  readonly chunks: readonly ChunkRef[];
  private readonly buf: Buffer;
  private tornTail: TornTail | undefined;
  private sessionList: SessionInfo[] | undefined;

  /**
   * @param bytes the file's content
   * @throws RecordingFormatError when `bytes` are not a recording.
   */
  constructor(
    bytes: Uint8Array,
    /** For messages: the file's path. */
    readonly name = 'the recording',
  ) {
    const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.buf = buf;
    const { chunks, torn } = scanChunks(buf, name);
    this.chunks = chunks;
    this.tornTail = torn;
  }

  /**
   * Reads a recording file.
   * @throws RecordingFormatError when it is not a recording or cannot be read.
   */
  static open(path: string): Recording {
    let buf: Buffer;
    try {
      buf = readFileSync(path);
    } catch (e) {
      throw new RecordingFormatError(`cannot read the recording ${path}: ${(e as Error).message}`, {}, { cause: e });
    }
    return new Recording(buf, path);
  }

  /** Size of the file in bytes. */
  get bytes(): number {
    return this.buf.length;
  }

  /** The unreadable end of the file, if any (known in full once every chunk was decompressed, e.g. after `sessions()`). */
  get torn(): TornTail | undefined {
    return this.tornTail;
  }

  /**
   * The lines of chunk `i`, or undefined when it is damaged (it becomes the torn tail: it and
   * everything after it are not read).
   */
  chunkLines(i: number): string[] | undefined {
    const chunk = this.chunks[i];
    if (chunk === undefined || (this.tornTail !== undefined && chunk.offset >= this.tornTail.offset)) return undefined;
    try {
      return decodeChunk(this.buf, chunk);
    } catch (e) {
      this.tornTail = { offset: chunk.offset, bytes: this.buf.length - chunk.offset, reason: `damaged chunk: ${(e as Error).message}` };
      return undefined;
    }
  }

  /**
   * The entries of chunk `i`, or undefined when it is damaged (it becomes the torn tail).
   * @throws RecordingFormatError when a value in it is not an entry.
   */
  chunkEntries(i: number): Entry[] | undefined {
    const chunk = this.chunks[i];
    if (chunk === undefined || (this.tornTail !== undefined && chunk.offset >= this.tornTail.offset)) return undefined;
    let values: unknown[];
    try {
      values = decodeChunkValues(this.buf, chunk);
    } catch (e) {
      this.tornTail = { offset: chunk.offset, bytes: this.buf.length - chunk.offset, reason: `damaged chunk: ${(e as Error).message}` };
      return undefined;
    }
    for (const v of values) if (!isEntry(v)) throw new RecordingFormatError(`${this.name}: not an entry of a recording: ${JSON.stringify(v).slice(0, 80)}`);
    return values as Entry[];
  }

  /**
   * Every session of the file (decompresses the whole file once; only header and end entries are parsed).
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
      for (const line of lines) {
        if (line.startsWith('["h",')) {
          close();
          current = { header: checkHeader(parseEntry(line, this.name), this.name), entries: 0, end: undefined };
        } else if (line.startsWith('["z",')) {
          if (current) current.end = (parseEntry(line, this.name) as readonly ['z', SessionEnd])[1];
          close();
        } else if (current) {
          current.entries++;
        } else {
          throw new RecordingFormatError(`${this.name}: entries before any session header`);
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
    throw new RecordingFormatError(`${this.name} has no session ${index} (it holds ${found} session${found === 1 ? '' : 's'}, numbered from 0)${this.tornTail ? `; its end is torn: ${this.tornTail.reason}` : ''}`);
  }
}

/**
 * Reads the entries of one session in order, with look-ahead. Ends before the session's end
 * entry, the next session's header, or the torn tail.
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
      const entries = this.recording.chunkEntries(this.nextChunk++);
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
