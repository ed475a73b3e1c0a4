/**
 * One client of the lines benchmark, in its OWN process (its CPU is its own
 * `process.cpuUsage()`): the library's `ExchangeClient` with `lines` 1 or 2 and the default
 * options but two (below), replicating every market's book. Inside a window it records, per
 * update emitted, the stream, the `seq`, the emission time and the update's `receivedAtNs`;
 * it counts snapshots (snapshot id changes), resyncs and non-live emissions throughout.
 *
 * Options set, the same for both clients: `clock` (the default system clock's timers, its
 * `nowNs` read as anchor + hrtime so `receivedAtNs` is on the clock every process shares),
 * `connection.reconnect.stableAfterMs` (see linesBench.ts, drop phase) and `rest.fetch` (the
 * platform's, counting the snapshot requests).
 *
 * IPC: `ClientCommand` / `ClientReply` (linesProtocol.ts); argv[2]: `ClientArgs` as JSON.
 */
import type { Subscription } from 'rxjs';
import { ExchangeClient } from '../../src/client';
import { systemClock, type Clock } from '../../src/clock';
import type { FetchLike } from '../../src/rest';
import type { OrderBook } from '../../src/replicas/book';
import type { BookStream, ClientArgs, ClientCommand, ClientCounts, ClientReply } from './linesProtocol';

const args = JSON.parse(process.argv[2] ?? '{}') as ClientArgs;
const anchor = BigInt(args.anchorNs);
const base = BigInt(args.baseHrNs);
const reply = (r: ClientReply): void => void process.send!(r);
const hrtime = process.hrtime.bigint;

const clock: Clock = {
  nowNs: () => anchor + hrtime(),
  nowMs: () => systemClock.nowMs(),
  setTimer: (callback, delayMs, options) => systemClock.setTimer(callback, delayMs, options),
};
const errors: string[] = [];
let client: ExchangeClient | undefined;

// Samples of the window, in growing arrays (a few thousand a window).
let timing = false;
let sStream: number[] = [];
let sSeq: number[] = [];
let sEmit: number[] = [];
let sRecv: number[] = [];
let updates = 0;
let window = { cpu: process.cpuUsage(), t0: hrtime(), n0: 0 };

const recvOffset = anchor + base;
type Book = { status: string; seq: bigint; snapshotId: number; everLive: boolean; book: OrderBook | undefined };
let books: Book[] = [];
let notLive = 0;
let announced = false;
let subs: Subscription[] = [];
let snapshotFetches = 0;

/** The platform's `fetch`, counting the book snapshot requests. */
const countingFetch: FetchLike = (input, init) => {
  if (new URL(input).pathname.endsWith('/orderBook')) snapshotFetches++;
  return globalThis.fetch(input, init);
};

/** Opens the client and its replicas; replies `live` once every book is. */
function connect(restUrl: string, wsUrl: string, streams: readonly BookStream[]): void {
  books = streams.map(() => ({ status: 'syncing', seq: 0n, snapshotId: 0, everLive: false, book: undefined }));
  const c = new ExchangeClient({
    restUrl,
    wsUrl,
    lines: args.lines,
    clock,
    connection: { reconnect: { stableAfterMs: args.stableAfterMs } },
    rest: { fetch: countingFetch },
  });
  client = c;
  c.errors$.subscribe((e) => {
    if (errors.length < 20) errors.push(`${e.code}: ${e.message}`);
  });
  subs = streams.map((s, i) => subscribeBook(c, s, i));
}

function subscribeBook(c: ExchangeClient, s: BookStream, i: number): Subscription {
  return c.orderBook({ market_type: s.market_type, market_id: s.market_id }).subscribe({
    next: (e) => {
      if (e.cause === 'update') {
        updates++;
        if (timing) {
          sEmit.push(Number(hrtime() - base));
          sRecv.push(Number(e.receivedAtNs - recvOffset));
          sStream.push(i);
          sSeq.push(Number(e.seq));
        }
      }
      const b = books[i]!;
      b.book = e.state as OrderBook;
      b.seq = e.seq;
      b.status = e.status;
      b.snapshotId = e.snapshotId;
      if (e.status === 'live') b.everLive = true;
      else if (b.everLive) notLive++;
      if (!announced && books.every((x) => x.status === 'live')) {
        announced = true;
        reply({ type: 'live' });
      }
    },
    error: (err: unknown) => {
      errors.push(`replica ${s.key} failed: ${String(err)}`);
      if (!announced) reply({ type: 'error', message: String(err) });
    },
  });
}

function counts(): ClientCounts {
  const ls = client?.lineStats() ?? { lines: [], resyncsAvoided: 0, gapsUnfilled: 0 };
  return {
    snapshots: books.reduce((n, b) => n + b.snapshotId, 0),
    fetches: snapshotFetches,
    resyncs: { ...client?.resyncCounts() },
    notLive,
    lineStats: { lines: ls.lines.map((l) => ({ state: l.state, won: l.won, late: l.late, gapsFilled: l.gapsFilled })), resyncsAvoided: ls.resyncsAvoided, gapsUnfilled: ls.gapsUnfilled },
    errors: errors.slice(),
  };
}

function top(b: OrderBook | undefined, depth: number) {
  if (!b) return { bids: [], asks: [] };
  const t = b.top(depth);
  const pairs = (ls: typeof t.bids) => ls.map((l): [string, string] => [l.price_ticks, l.size_base_lots]);
  return { bids: pairs(t.bids), asks: pairs(t.asks) };
}

async function exit(): Promise<void> {
  for (const s of subs) s.unsubscribe();
  await client?.close().catch(() => undefined);
  process.exit(0);
}

process.on('message', (cmd: ClientCommand) => {
  switch (cmd.cmd) {
    case 'connect':
      connect(cmd.restUrl, cmd.wsUrl, cmd.streams);
      break;
    case 'start':
      sStream = [];
      sSeq = [];
      sEmit = [];
      sRecv = [];
      timing = true;
      window = { cpu: process.cpuUsage(), t0: hrtime(), n0: updates };
      reply({ type: 'started' });
      break;
    case 'stop': {
      const cpu = process.cpuUsage(window.cpu);
      const wallUs = Number(hrtime() - window.t0) / 1000;
      timing = false;
      reply({ type: 'window', cpuUs: cpu.user + cpu.system, wallUs, updates: updates - window.n0, samples: { stream: sStream, seq: sSeq, emitNs: sEmit, recvNs: sRecv } });
      break;
    }
    case 'counts':
      reply({ type: 'counts', counts: counts() });
      break;
    case 'books':
      reply({ type: 'books', books: books.map((b) => ({ status: b.status, seq: String(b.seq), ...top(b.book, cmd.depth) })) });
      break;
    case 'exit':
      void exit();
      break;
  }
});
process.on('disconnect', () => void exit());
reply({ type: 'ready' });
