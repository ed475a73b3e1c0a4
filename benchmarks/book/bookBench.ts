/**
 * The book reducer benchmark: each implementation's ns per frame for "apply + best" and
 * "apply + top-10 read" over seeded delta streams, net of a no-op book driven by its own
 * copy of the loop; and bytes per level at 10,000 levels a side.
 *
 * Method: every repetition runs every (stream, read, book) once, books in a shuffled order,
 * each on a fresh load of the snapshot; per chunk of frames, the median over the repetitions
 * after the warm-up ones, summed over the chunks.
 * A stream's books are handed either the wire form (decimal strings) or the same changes
 * pre-parsed (numbers), in chunks made just before their timed pass (hotFrames.ts: as a
 * client hands its book freshly decoded frames). The no-op book's figure (the loop alone)
 * is reported and subtracted (it is about 1 ns a frame); the gross figures are kept too.
 * After every run the book's best levels are compared with a plain replay: a book that
 * gets them wrong is marked and takes no part in the ratios.
 */
import { fmt, median } from '../lib/stats';
import { seededRandom } from '../lib/rng';
import type { BenchFrame } from '../bookMicro';
import type { CheckedAdapter, CheckedFactory } from './adapters';
import { diffTop, makeDeltaStream, replayTop, type DeltaStream, type StreamFocus } from './deltaStream';
import { CHUNK, makeHotChunk, type FrameInput } from './hotFrames';
import { bytesPerLevel, type MemorySpec } from './memory';
import type { ProbeBook } from './memoryProbe';
import { compileTimingLoop, type BookOp, type TimingLoop } from './timingLoop';

export interface BookBenchStream {
  readonly id: string;
  readonly label: string;
  readonly focus: StreamFocus;
  readonly base: bigint;
  /** What the books are handed: decimal strings, or the same changes pre-parsed. */
  readonly input: FrameInput;
  /** Books that run this stream (the first is the one ratios are computed for). */
  readonly books: readonly CheckedFactory[];
}

export interface BookBenchConfig {
  readonly levels: number;
  readonly frames: number;
  readonly reps: number;
  /** Repetitions run first and not kept (the engine optimizes the loops meanwhile). */
  readonly warmups: number;
  readonly seed: number;
  readonly streams: readonly BookBenchStream[];
  readonly memory: MemorySpec;
  /** Books measured for bytes per level (each in its own process). */
  readonly memoryBooks: readonly ProbeBook[];
  readonly noop: CheckedFactory;
  readonly log?: (line: string) => void;
}

export interface BookRow {
  readonly stream: string;
  readonly op: BookOp;
  readonly book: string;
  /**
   * Gross ns per frame, loop included: the sum over the chunks of each chunk's median over
   * the repetitions (a preemption on a busy machine hits a chunk in one repetition, not in
   * most), divided by the frames.
   */
  readonly grossNs: number;
  /** Gross minus the no-op book's gross. */
  readonly netNs: number;
  /** Every repetition's gross ns per frame (warm-up excluded): the spread. */
  readonly samplesNs: number[];
  /** Best levels equal to the plain replay after every run. */
  readonly correct: boolean;
  readonly error?: string;
}

export interface BookBenchResult {
  readonly config: { levels: number; frames: number; reps: number; seed: number; memoryLevelsPerSide: number };
  readonly rows: BookRow[];
  readonly memory: { book: string; bytesPerLevel: number }[];
}

const OPS: readonly BookOp[] = ['best', 'top10'];
const CHECK_DEPTH = 10;

interface Cell {
  adapter: CheckedAdapter;
  loop: TimingLoop;
  samples: number[];
  /** Per chunk, its ns in every kept repetition. */
  chunkNs: number[][];
  error?: string;
}

export async function runBookBench(cfg: BookBenchConfig): Promise<BookBenchResult> {
  const log = cfg.log ?? (() => undefined);
  const shuffle = seededRandom(cfg.seed ^ 0x9e3779b9);
  const rows: BookRow[] = [];
  for (const s of cfg.streams) {
    const stream: DeltaStream = makeDeltaStream({ levels: cfg.levels, frames: cfg.frames, seed: cfg.seed, focus: s.focus, base: s.base });
    const want = replayTop(stream, stream.frames.length, CHECK_DEPTH);
    const cells = new Map<string, Cell>();
    const key = (op: BookOp, i: number) => `${op}/${i}`;
    const factories = [cfg.noop, ...s.books];
    for (const op of OPS) {
      factories.forEach((f, i) => {
        const adapter = f();
        cells.set(key(op, i), { adapter, loop: compileTimingLoop(`${s.id}/${adapter.name}`, op), samples: [], chunkNs: [] });
      });
    }
    for (let rep = 0; rep < cfg.warmups + cfg.reps; rep++) {
      for (const op of OPS) {
        const order = factories.map((_, i) => i);
        for (let i = order.length - 1; i > 0; i--) {
          const j = Math.floor(shuffle() * (i + 1));
          [order[i], order[j]] = [order[j]!, order[i]!];
        }
        for (const i of order) {
          const cell = cells.get(key(op, i))!;
          cell.adapter.load(stream.snapshot);
          const ns = timeChunks(cell, stream.frames, s.input, rep >= cfg.warmups);
          if (rep >= cfg.warmups) cell.samples.push(ns / stream.frames.length);
          if (i > 0 && cell.error === undefined) cell.error = diffTop(cell.adapter.exactTop(CHECK_DEPTH), want);
        }
      }
      log(`  book ${s.id}: ${rep < cfg.warmups ? `warm-up ${rep + 1}/${cfg.warmups}` : `repetition ${rep + 1 - cfg.warmups}/${cfg.reps}`} done`);
    }
    for (const op of OPS) {
      const noop = median(cells.get(key(op, 0))!.samples);
      factories.forEach((_, i) => {
        const c = cells.get(key(op, i))!;
        const gross = c.chunkNs.reduce((sum, xs) => sum + median(xs), 0) / stream.frames.length;
        rows.push({ stream: s.id, op, book: c.adapter.name, grossNs: gross, netNs: i === 0 ? gross : gross - noop, samplesNs: c.samples, correct: c.error === undefined, ...(c.error ? { error: c.error } : {}) });
      });
    }
  }
  const memory: { book: string; bytesPerLevel: number }[] = [];
  for (const b of cfg.memoryBooks) {
    const m = await bytesPerLevel(b, cfg.memory);
    log(`  memory ${m.name}: ${fmt(m.bytesPerLevel)} bytes/level`);
    memory.push({ book: m.name, bytesPerLevel: m.bytesPerLevel });
  }
  return { config: { levels: cfg.levels, frames: cfg.frames, reps: cfg.reps, seed: cfg.seed, memoryLevelsPerSide: cfg.memory.levelsPerSide }, rows, memory };
}

/**
 * Runs every frame through the cell's loop, chunk by chunk (each made just before its pass);
 * returns the total ns and, when `keep`, records each chunk's ns in `cell.chunkNs`.
 */
function timeChunks(cell: Cell, frames: readonly BenchFrame[], input: FrameInput, keep: boolean): number {
  let ns = 0;
  for (let i = 0, c = 0; i < frames.length; i += CHUNK, c++) {
    const t = cell.loop(cell.adapter, makeHotChunk(frames, i, Math.min(frames.length, i + CHUNK), input));
    if (keep) (cell.chunkNs[c] ??= []).push(t);
    ns += t;
  }
  return ns;
}

/** Net ns ratio `other / ours` per stream and read, or undefined when either is wrong. */
export function bookRatio(result: BookBenchResult, stream: string, op: BookOp, ours: string, other: string): number | undefined {
  const a = result.rows.find((r) => r.stream === stream && r.op === op && r.book === ours);
  const b = result.rows.find((r) => r.stream === stream && r.op === op && r.book === other);
  if (!a || !b || !a.correct || !b.correct) return undefined;
  return b.netNs / a.netNs;
}
