/**
 * Where the client's post-fetch work goes: the library's own steps, called one by one on a
 * 500-level `/v1/orderBook` answer captured during the resync run (JSON.parse, the response
 * schema check, building the book). Each step is timed twice: back to back (warm caches)
 * and after an idle gap like the one before each resync of the run (the process sleeps
 * between resyncs, so the real ones run on cold caches: typically about twice as slow).
 * Medians over `reps`.
 */
import { responseSchema, validateWithDrift, type PriceLevel } from '../../src/protocol';
import { bookReducer } from '../../src/replicas/book';
import { delay, median } from '../lib/stats';

export interface BreakdownRow {
  readonly step: string;
  /** Median µs per call, calls back to back. */
  readonly warmUs: number;
  /** Median µs per call, each after `idleMs` of sleep. */
  readonly afterIdleUs: number;
}

const SCOPE = { market_id: 0, is_perps: true };

type Body = { data: { bids: PriceLevel[]; asks: PriceLevel[] } };

const elapsedUs = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1000;

/** Times each step of turning `body` into a book; `idleMs` is the gap before each cold sample. */
export async function breakdownSnapshot(body: string, reps: number, idleMs: number): Promise<BreakdownRow[]> {
  const schema = responseSchema('orderBook');
  const parse = (text: string) => JSON.parse(text) as Body;
  const check = (raw: Body) => validateWithDrift(schema, raw, { strict: false });
  const build = (raw: Body) => bookReducer.fromSnapshot(raw.data, SCOPE, undefined);
  // Fresh copies of the text, so that no sample reads a string another already parsed.
  const copy = () => Buffer.from(body).toString();
  const warm: number[][] = [[], [], []];
  const cold: number[][] = [[], [], []];
  const sample = (into: number[][]) => {
    const text = copy();
    let t0 = process.hrtime.bigint();
    const raw = parse(text);
    into[0]!.push(elapsedUs(t0));
    t0 = process.hrtime.bigint();
    check(raw);
    into[1]!.push(elapsedUs(t0));
    t0 = process.hrtime.bigint();
    build(raw);
    into[2]!.push(elapsedUs(t0));
  };
  for (let i = 0; i < Math.min(50, reps); i++) sample([[], [], []]);
  for (let i = 0; i < reps; i++) sample(warm);
  for (let i = 0; i < reps; i++) {
    await delay(idleMs);
    sample(cold);
  }
  const names = ['JSON.parse of the answer', 'response schema check (zod, drift policy)', 'build the book (bookReducer.fromSnapshot)'];
  return names.map((step, i) => ({ step, warmUs: median(warm[i]!), afterIdleUs: median(cold[i]!) }));
}
