/**
 * The entries of a recording: one sequence per client session, in the order things happened.
 * Each entry is a JSON array whose first element says what it is:
 *
 * - inputs (what the world did to the client; each carries `at`, the local receive time in
 *   ms since the session began, µs precision): a socket opened (`o`), a frame (`m`), a socket
 *   closed (`c`) or failed (`e`), an HTTP answer (`a`) or failure (`f`), a timer fired (`t`);
 * - outputs (what the client did or read; replayed from, or checked against, the log): a wall
 *   clock read (`n`), a monotonic clock read (`d`), a random draw (`r`), a timer set (`T`), a
 *   socket created (`S`), a frame sent (`s`), a socket closed (`C`) or terminated (`K`), an
 *   HTTP request issued (`F`);
 * - the session's header (`h`) and end (`z`).
 *
 * Sockets, timers and HTTP requests are numbered from 1 in the order the client created them.
 */
import type { JsonValue } from './json';

export type OpenEntry = readonly ['o', number, number];
/** `[m, at, socket, text]`, plus a trailing 1 for a binary frame. */
export type MessageEntry = readonly ['m', number, number, string] | readonly ['m', number, number, string, 1];
export type CloseEntry = readonly ['c', number, number, number, string];
/** `[e, at, socket, message, code]`: `code` is the `ws` error code (e.g. `WS_ERR_UNSUPPORTED_MESSAGE_LENGTH`) or null. */
export type SocketErrorEntry = readonly ['e', number, number, string, string | null];
/** `[a, at, request, status, body, content-length, content-encoding]`. */
export type AnswerEntry = readonly ['a', number, number, number, string, string | null, string | null];
/** `[f, at, request, error name, message, cause message]`. */
export type FetchFailureEntry = readonly ['f', number, number, string, string, string | null];
export type TimerFiredEntry = readonly ['t', number, number];

export type InputEntry = OpenEntry | MessageEntry | CloseEntry | SocketErrorEntry | AnswerEntry | FetchFailureEntry | TimerFiredEntry;

/** `[n, nanoseconds as a decimal string]`. */
export type NowNsEntry = readonly ['n', string];
export type NowMsEntry = readonly ['d', number];
export type RandomEntry = readonly ['r', number];
/** `[T, timer, delay ms]`. */
export type TimerSetEntry = readonly ['T', number, number];
/** `[S, socket, url]`, or `[S, socket, url, message]` when the socket class threw. */
export type SocketCreatedEntry = readonly ['S', number, string] | readonly ['S', number, string, string];
export type SendEntry = readonly ['s', number, string];
export type ClientCloseEntry = readonly ['C', number, number | null, string | null];
export type TerminateEntry = readonly ['K', number];
/** `[F, request, url]`. */
export type FetchEntry = readonly ['F', number, string];

export type OutputEntry = NowNsEntry | NowMsEntry | RandomEntry | TimerSetEntry | SocketCreatedEntry | SendEntry | ClientCloseEntry | TerminateEntry | FetchEntry;

/** Why a recording session ended. */
export type RecordingStopReason = 'closed' | 'maxBytes' | 'maxDuration' | 'exit';

/** The first entry of a session. */
export interface SessionHeader {
  readonly format: typeof RECORDING_FORMAT;
  readonly version: typeof RECORDING_VERSION;
  /** Wall-clock start, Unix ns (decimal string), and the same as an ISO date. */
  readonly startedAtNs: string;
  readonly startedAt: string;
  readonly restUrl: string;
  readonly wsUrl: string;
  /** The client's options that can be stored (numbers, strings, booleans; no functions, no headers). */
  readonly options: JsonValue;
  /** What the recording's author attached (`FeedRecorder` option `meta`). */
  readonly meta: JsonValue;
}

/** The last entry of a session that ended cleanly. */
export interface SessionEnd {
  readonly reason: RecordingStopReason;
  /** Entries written in the session, this one excluded. */
  readonly entries: number;
  readonly inputs: number;
  /** Time from the session's start to its end, ms. */
  readonly durationMs: number;
}

export type HeaderEntry = readonly ['h', SessionHeader];
export type EndEntry = readonly ['z', SessionEnd];

export type Entry = InputEntry | OutputEntry | HeaderEntry | EndEntry;

export const RECORDING_FORMAT = 'exchange-replica-recording';
/** 2: every chunk carries a checksum (see chunks.ts); files of version 1 are refused. */
export const RECORDING_VERSION = 2;

const INPUT_TAGS = new Set(['o', 'm', 'c', 'e', 'a', 'f', 't']);
const OUTPUT_TAGS = new Set(['n', 'd', 'r', 'T', 'S', 's', 'C', 'K', 'F']);

export function isInput(e: Entry): e is InputEntry {
  return INPUT_TAGS.has(e[0]);
}

export function isOutput(e: Entry): e is OutputEntry {
  return OUTPUT_TAGS.has(e[0]);
}

/** True for the kind (first element) of an entry. */
export function isEntryTag(tag: string): boolean {
  return INPUT_TAGS.has(tag) || OUTPUT_TAGS.has(tag) || tag === 'h' || tag === 'z';
}

/** True for a value that has the shape of an entry (an array starting with a known tag). */
export function isEntry(v: unknown): v is Entry {
  return Array.isArray(v) && typeof v[0] === 'string' && isEntryTag(v[0]);
}

const excerpt = (text: string, n = 120): string => (text.length > n ? `${JSON.stringify(text.slice(0, n))}...` : JSON.stringify(text));

/** A short description of an entry, for divergence messages. */
export function describeEntry(e: Entry | undefined): string {
  if (e === undefined) return 'nothing more (the recording ends here)';
  switch (e[0]) {
    case 'o':
      return `socket #${e[2]} opened`;
    case 'm':
      return `a frame on socket #${e[2]}: ${excerpt(e[3])}`;
    case 'c':
      return `socket #${e[2]} closed (code ${e[3]})`;
    case 'e':
      return `socket #${e[2]} failed: ${e[3]}`;
    case 'a':
      return `the answer to request #${e[2]} (HTTP ${e[3]})`;
    case 'f':
      return `request #${e[2]} failed: ${e[4]}`;
    case 't':
      return `timer #${e[2]} fired`;
    case 'n':
      return 'a read of the wall clock (nowNs)';
    case 'd':
      return 'a read of the monotonic clock (nowMs)';
    case 'r':
      return 'a random draw';
    case 'T':
      return `timer #${e[1]} set for ${e[2]} ms`;
    case 'S':
      return `socket #${e[1]} created for ${e[2]}`;
    case 's':
      return `a frame sent on socket #${e[1]}: ${excerpt(e[2])}`;
    case 'C':
      return `socket #${e[1]} closed by the client (code ${e[2]})`;
    case 'K':
      return `socket #${e[1]} terminated by the client`;
    case 'F':
      return `request #${e[1]} to ${e[2]}`;
    case 'h':
      return 'the start of another session';
    case 'z':
      return `the end of the session (${e[1].reason})`;
  }
}
