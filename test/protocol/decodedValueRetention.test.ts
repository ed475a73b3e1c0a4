/**
 * A value the fast decoders read out of a frame must not keep the frame's text alive: a
 * replica keeps records (open orders, recent fills, candles) long after their frame, and a
 * view into the text would pin the whole frame with each of them (V8 makes a slice of 13
 * characters or more a view into its parent). Measured on the heap: many large frames, one
 * long value kept from each.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { scanUpdate } from '../../src/protocol/fastDecode';
import type { UpdateFrame } from '../../src/protocol/frames';
import { writeServerFrame } from '../../src/protocol/serverFrameWriter';
import { fill, order } from '../replicas/fixtures';

function collector(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return existing;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

const FRAMES = 200;
const RECORDS = 100; // ~25-30 KB a frame: pinned, the frames would hold ~5 MB

/** Heap bytes still held after keeping `keep(frame i)` from each of FRAMES decoded frames. */
function heldByKeptValues(frameText: (i: number) => string, keep: (frame: UpdateFrame) => string): { held: number; textBytes: number; kept: string[] } {
  const gc = collector();
  const kept: string[] = [];
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const texts = Array.from({ length: FRAMES }, (_, i) => frameText(i));
  const textBytes = texts.reduce((n, t) => n + t.length, 0);
  for (let i = 0; i < FRAMES; i++) {
    const frame = scanUpdate(texts[i]!);
    if (frame === undefined) throw new Error(`frame ${i} did not take the fast path`);
    kept.push(keep(frame));
    texts[i] = '';
  }
  gc();
  gc();
  return { held: process.memoryUsage().heapUsed - before, textBytes, kept };
}

const LONG = 1_700_000_000_000_000_000n;

/** The i-th update frame of `channel` with `data`, its envelope numbers 19 digits long. */
function updateText(channel: 'orders' | 'fills' | 'trades', i: number, data: Record<string, unknown[]>): string {
  return writeServerFrame({ type: 'update', subscription_id: '7', channel, seq: String(LONG + BigInt(i)), timestamp_ns: String(LONG + BigInt(i)), data } as UpdateFrame);
}

describe('decoded values do not pin their frame text', () => {
  it('layout records (orders): a kept timestamp and order id hold their own bytes only', () => {
    const text = (i: number) => updateText('orders', i, { orders: Array.from({ length: RECORDS }, (_, k) => ({ ...order(i * RECORDS + k), created_at_ns: String(LONG + BigInt(k)), updated_at_ns: String(LONG + BigInt(i)) })) });
    const { held, textBytes, kept } = heldByKeptValues(text, (f) => {
      const orders = (f.data as { orders: { created_at_ns: string; order_id: string }[] }).orders;
      return orders[RECORDS - 1]!.created_at_ns + '/' + orders[0]!.order_id;
    });
    expect(kept[0]).toBe(`${LONG + BigInt(RECORDS - 1)}/${order(0).order_id}`);
    // Pinned, the texts would all be held (measured: ~1.0x textBytes); owned, ~0.05x.
    expect(held).toBeLessThan(textBytes / 4);
  });

  it('layout records (fills): a kept notional holds its own bytes only', () => {
    const text = (i: number) => updateText('fills', i, { fills: Array.from({ length: RECORDS }, (_, k) => ({ ...fill(i * RECORDS + k + 1), quote_notional_lots: String(LONG + BigInt(k)) })) });
    const { held, textBytes, kept } = heldByKeptValues(text, (f) => (f.data as { fills: { quote_notional_lots: string }[] }).fills[3]!.quote_notional_lots);
    expect(kept[0]).toBe(String(LONG + 3n));
    expect(held).toBeLessThan(textBytes / 4);
  });

  it('hot records (trades): a kept timestamp holds its own bytes only', () => {
    const trade = (k: number) => ({ timestamp_ns: String(LONG + BigInt(k)), sequence: String(k + 1), price_ticks: '1000', size_base_lots: '3', quote_notional_lots: '3000', taker_is_bid: k % 2 === 0 });
    const text = (i: number) => updateText('trades', i, { trades: Array.from({ length: RECORDS * 2 }, (_, k) => trade(k)) });
    const { held, textBytes, kept } = heldByKeptValues(text, (f) => (f.data as { trades: { timestamp_ns: string }[] }).trades[5]!.timestamp_ns);
    expect(kept[0]).toBe(String(LONG + 5n));
    expect(held).toBeLessThan(textBytes / 4);
  });
});
