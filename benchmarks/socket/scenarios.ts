/**
 * The client scenarios of the socket benchmark, from bare receive to a validating replica.
 * Each one connects to the sender's feed, subscribes to `book`, and from then on handles
 * every frame with its own handler (own code, so no scenario's type feedback slows another).
 * Those that keep a state keep it in two maps (price -> size) loaded from the REST snapshot,
 * and are checked at the end against a plain replay of the frames sent; every scenario
 * checks the frame count.
 *
 * A scenario is any object implementing {@link Scenario}: the library's whole client path
 * (clientPathScenario.ts) is one more entry beside {@link RAW_SCENARIOS}.
 */
import WebSocket from 'ws';
import type { RawData } from 'ws';
import { decodeAndValidate, decodeAndValidateWithSchemas } from '../../src/protocol/fastDecode';
import type { PriceLevel } from '../../src/protocol';
import { diffTop, topOf, type TopLevels } from '../book/deltaStream';

export interface ScenarioContext {
  /** `ws://127.0.0.1:<port>/ws`: the sender's feed. */
  readonly url: string;
  /** `http://127.0.0.1:<port>`: the sender's REST side (the stream's snapshot). */
  readonly restUrl: string;
  /** Called with each frame's latency in ns (latency pass only). */
  readonly record?: (latencyNs: number) => void;
  /** Latency of a frame from its `timestamp_ns`, as of now. */
  readonly latencyOf: (timestampNs: string) => number;
}

/** What a finished run is checked against. */
export interface RunExpectation {
  readonly frames: number;
  readonly top: TopLevels;
}

export interface ScenarioRun {
  /** Frames handled so far. */
  received(): number;
  /** Undefined when the run saw every frame and (for stateful scenarios) holds the right book. */
  check(expect: RunExpectation): string | undefined;
  close(): Promise<void>;
}

export interface Scenario {
  readonly id: string;
  readonly label: string;
  /** Whether it reaches a state whose latency can be timed (receive-only does not). */
  readonly timesLatency: boolean;
  start(ctx: ScenarioContext): Promise<ScenarioRun>;
}

const CONNECT_TIMEOUT_MS = 10_000;
const STRICT = { strict: true } as const;

/** Opens the feed and subscribes to `book`; resolves once `subscribed` came back. */
async function subscribe(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no subscribed frame within ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS);
    ws.once('error', reject);
    ws.once('open', () => ws.send(JSON.stringify({ type: 'subscribe', request_id: '1', channel: 'book', market_id: 0, is_perps: true })));
    ws.once('message', (data) => {
      clearTimeout(timer);
      const f = JSON.parse(String(data)) as { type?: string };
      if (f.type === 'subscribed') resolve();
      else reject(new Error(`expected subscribed, got ${String(data)}`));
    });
  });
  return ws;
}

function closeSocket(ws: WebSocket): Promise<void> {
  if (ws.readyState === WebSocket.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    ws.once('close', () => resolve());
    ws.terminate();
  });
}

/**
 * A minimal replica: maps from price to size, loaded from the sender's REST snapshot
 * (sequence 0; the stream starts at seq 1) and checked against the replay.
 */
class MapBook {
  readonly bids = new Map<string, string>();
  readonly asks = new Map<string, string>();
  /** Frames a validating scenario rejected (none should be). */
  rejected = 0;

  static async load(restUrl: string): Promise<MapBook> {
    const res = await fetch(`${restUrl}/v1/orderBook?market_type=perp&market_id=0&depth=500`);
    const body = (await res.json()) as { data: { bids: PriceLevel[]; asks: PriceLevel[] }; sequence: string };
    if (body.sequence !== '0') throw new Error(`snapshot sequence ${body.sequence}, expected 0`);
    const book = new MapBook();
    for (const l of body.data.bids) book.bids.set(l.price_ticks, l.size_base_lots);
    for (const l of body.data.asks) book.asks.set(l.price_ticks, l.size_base_lots);
    return book;
  }

  check(n: number, expect: RunExpectation): string | undefined {
    if (this.rejected > 0) return `${this.rejected} frames were rejected`;
    if (n !== expect.frames) return `handled ${n} frames, ${expect.frames} were sent`;
    const depth = expect.top.bids.length;
    return diffTop({ bids: topOf(this.bids, depth, -1), asks: topOf(this.asks, depth, 1) }, expect.top);
  }
}

function baseRun(ws: WebSocket, count: () => number, check: (expect: RunExpectation) => string | undefined): ScenarioRun {
  return { received: count, check, close: () => closeSocket(ws) };
}

/** Receives each frame and does nothing with it: the transport alone. */
export const receiveOnly: Scenario = {
  id: 'receive',
  label: 'receive only',
  timesLatency: false,
  async start(ctx) {
    const ws = await subscribe(ctx.url);
    let n = 0;
    ws.on('message', () => {
      n++;
    });
    return baseRun(ws, () => n, (e) => (n === e.frames ? undefined : `received ${n} frames, ${e.frames} were sent`));
  },
};

/** + JSON.parse of every frame: THE floor any JSON client pays. */
export const parseOnly: Scenario = {
  id: 'parse',
  label: '+ JSON.parse (floor)',
  timesLatency: true,
  async start(ctx) {
    const ws = await subscribe(ctx.url);
    const { record, latencyOf } = ctx;
    let n = 0;
    let lastSeq = '';
    ws.on('message', (data: RawData) => {
      const f = JSON.parse(data.toString()) as { seq: string; timestamp_ns: string };
      lastSeq = f.seq;
      n++;
      if (record) record(latencyOf(f.timestamp_ns));
    });
    return baseRun(ws, () => n, (e) => (n === e.frames && lastSeq === String(e.frames) ? undefined : `parsed ${n} frames up to seq ${lastSeq}, ${e.frames} were sent`));
  },
};

/** + apply each frame's levels to the maps (no validation: a malformed frame would corrupt it). */
export const parseApply: Scenario = {
  id: 'parse+apply',
  label: '+ apply to a Map (no validation)',
  timesLatency: true,
  async start(ctx) {
    const book = await MapBook.load(ctx.restUrl);
    const ws = await subscribe(ctx.url);
    const { record, latencyOf } = ctx;
    const { bids, asks } = book;
    let n = 0;
    ws.on('message', (data: RawData) => {
      const f = JSON.parse(data.toString()) as { timestamp_ns: string; data: { bids: PriceLevel[]; asks: PriceLevel[] } };
      for (const l of f.data.bids) l.size_base_lots === '0' ? bids.delete(l.price_ticks) : bids.set(l.price_ticks, l.size_base_lots);
      for (const l of f.data.asks) l.size_base_lots === '0' ? asks.delete(l.price_ticks) : asks.set(l.price_ticks, l.size_base_lots);
      n++;
      if (record) record(latencyOf(f.timestamp_ns));
    });
    return baseRun(ws, () => n, (e) => book.check(n, e));
  },
};

/** + zod: the frame schema and the channel's strict data schema, then apply (the naive validating client). */
export const zodApply: Scenario = {
  id: 'zod+apply',
  label: '+ zod strict check + apply',
  timesLatency: true,
  async start(ctx) {
    const book = await MapBook.load(ctx.restUrl);
    const ws = await subscribe(ctx.url);
    const { record, latencyOf } = ctx;
    const { bids, asks } = book;
    let n = 0;
    ws.on('message', (data: RawData) => {
      const r = decodeAndValidateWithSchemas(data.toString(), STRICT);
      n++;
      if (!r.ok || r.frame.type !== 'update') {
        book.rejected++;
        return;
      }
      const d = r.data as { bids: PriceLevel[]; asks: PriceLevel[] };
      for (const l of d.bids) l.size_base_lots === '0' ? bids.delete(l.price_ticks) : bids.set(l.price_ticks, l.size_base_lots);
      for (const l of d.asks) l.size_base_lots === '0' ? asks.delete(l.price_ticks) : asks.set(l.price_ticks, l.size_base_lots);
      if (record) record(latencyOf(r.frame.timestamp_ns));
    });
    return baseRun(ws, () => n, (e) => book.check(n, e));
  },
};

/** + our fast decoder (same checks as zod, fallback included), then apply. */
export const fastApply: Scenario = {
  id: 'fast+apply',
  label: '+ fast decoder (validating) + apply',
  timesLatency: true,
  async start(ctx) {
    const book = await MapBook.load(ctx.restUrl);
    const ws = await subscribe(ctx.url);
    const { record, latencyOf } = ctx;
    const { bids, asks } = book;
    let n = 0;
    ws.on('message', (data: RawData) => {
      const r = decodeAndValidate(data.toString(), STRICT);
      n++;
      if (!r.ok || r.frame.type !== 'update') {
        book.rejected++;
        return;
      }
      const d = r.data as { bids: PriceLevel[]; asks: PriceLevel[] };
      for (const l of d.bids) l.size_base_lots === '0' ? bids.delete(l.price_ticks) : bids.set(l.price_ticks, l.size_base_lots);
      for (const l of d.asks) l.size_base_lots === '0' ? asks.delete(l.price_ticks) : asks.set(l.price_ticks, l.size_base_lots);
      if (record) record(latencyOf(r.frame.timestamp_ns));
    });
    return baseRun(ws, () => n, (e) => book.check(n, e));
  },
};

/** The scenarios measured by default, the floor first. */
export const RAW_SCENARIOS: readonly Scenario[] = [parseOnly, receiveOnly, parseApply, zodApply, fastApply];
