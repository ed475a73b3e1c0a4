/** Where a replay from a recording starts: an offset into the session, or a wall-clock time. */
import { InvalidParameterError } from '../errors';

/**
 * A recorded time: a number of ms since the session began (`90_000`), or a `Date` of the
 * recording's wall clock.
 */
export type ReplayTime = number | Date;

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Reads a replay time given as text (the command line's `--from`): an offset since the
 * session began (`90s`, `1m30s`, `1h`, `250ms`, a bare number of ms) or an ISO date
 * (`2026-11-27T17:15:39Z`).
 * @throws InvalidParameterError for anything else.
 * @example parseReplayTime('1m30s') // => 90000
 */
export function parseReplayTime(text: string): ReplayTime {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t);
  const parts = /^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+(?:\.\d+)?)ms)?$/.exec(t);
  if (t !== '' && parts && parts.slice(1).some((p) => p !== undefined)) {
    const [h, m, s, ms] = parts.slice(1).map((p) => Number(p ?? 0));
    return h! * UNITS.h! + m! * UNITS.m! + s! * UNITS.s! + ms!;
  }
  if (/^\d{4}-\d\d-\d\d/.test(t)) {
    const d = new Date(t);
    if (!Number.isNaN(d.getTime())) return d;
  }
  throw new InvalidParameterError(`invalid replay time ${JSON.stringify(text)}: expected an offset into the recording (90s, 1m30s, 1h, 250ms, or ms) or an ISO date`, { param: 'from' });
}

/**
 * The offset (ms since the session began) of a replay time.
 * @param startedAtNs the session's wall-clock start, Unix ns
 * @throws InvalidParameterError for a negative or non-finite offset, or an invalid date.
 */
export function replayOffsetMs(time: ReplayTime, startedAtNs: bigint): number {
  const ms = time instanceof Date ? time.getTime() - Number(startedAtNs / 1_000_000n) : time;
  if (typeof ms !== 'number' || !Number.isFinite(ms)) throw new InvalidParameterError(`invalid option 'from': expected ms since the session began or a Date, got ${String(time)}`, { param: 'from' });
  return Math.max(0, ms);
}
