/** The targets and the benchmark's own correctness checks, judged from the results. */
import { bookRatio, type BookBenchResult } from '../book/bookBench';
import type { SocketBenchResult } from '../socket/socketBench';
import type { CheckOutcome, TargetOutcome } from './report';
import { fmt, fmtRatio } from './stats';

export const OURS = 'ours (OrderBook)';
export const CCXT = 'ccxt pro OrderBook';
/** Target: our book at least this many times faster than ccxt's, net of the loop. */
export const SPEEDUP_TARGET = 4;
/** Target: bytes per level at 10,000 levels a side. */
export const BYTES_PER_LEVEL_TARGET = 30;

/** Streams on which a float book cannot be right (prices beyond 2^53): their errors are the point. */
export const INEXACT_FOR_FLOATS = new Set(['exact']);

export function evaluateTargets(book: BookBenchResult | undefined): TargetOutcome[] {
  if (!book) return [];
  const out: TargetOutcome[] = [];
  for (const stream of ['top', 'whole']) {
    for (const op of ['best', 'top10'] as const) {
      const r = bookRatio(book, stream, op, OURS, CCXT);
      if (r === undefined && !book.rows.some((x) => x.stream === stream)) continue;
      out.push({ target: `ours >= ${SPEEDUP_TARGET}x faster than ccxt, apply+${op}, stream ${stream}`, measured: fmtRatio(r), met: r !== undefined && r >= SPEEDUP_TARGET });
    }
  }
  const mem = book.memory.find((m) => m.book === OURS);
  if (mem) out.push({ target: `ours <= ${BYTES_PER_LEVEL_TARGET} bytes/level at ${book.config.memoryLevelsPerSide} levels a side`, measured: fmt(mem.bytesPerLevel), met: mem.bytesPerLevel <= BYTES_PER_LEVEL_TARGET });
  return out;
}

export function evaluateChecks(book: BookBenchResult | undefined, socket: SocketBenchResult | undefined): CheckOutcome[] {
  const out: CheckOutcome[] = [];
  for (const row of book?.rows ?? []) {
    if (row.book === 'no-op') continue;
    const floatOnExact = INEXACT_FOR_FLOATS.has(row.stream) && !row.book.startsWith('ours');
    if (floatOnExact) {
      // Not a failure of the benchmark: the check did its job if it caught the rounding.
      out.push({ check: `book ${row.stream}/${row.op}: ${row.book} (float prices beyond 2^53)`, ok: true, detail: row.correct ? 'happened to match' : `wrong as expected, excluded: ${row.error}` });
      continue;
    }
    out.push({ check: `book ${row.stream}/${row.op}: ${row.book} top levels = plain replay`, ok: row.correct, ...(row.error ? { detail: row.error } : {}) });
  }
  for (const c of socket?.cpu ?? []) out.push({ check: `socket cpu ${c.rate}/s ${c.scenario}: every frame handled, state = replay`, ok: c.correct, ...(c.errors.length ? { detail: c.errors.join('; ') } : {}) });
  for (const l of socket?.latency ?? []) {
    out.push({ check: `socket latency ${l.rate}/s ${l.scenario}: every frame handled, state = replay`, ok: l.correct, ...(l.errors.length ? { detail: l.errors.join('; ') } : {}) });
    out.push({ check: `socket latency ${l.rate}/s ${l.scenario}: latencies recorded`, ok: l.count > 0 });
  }
  return out;
}
