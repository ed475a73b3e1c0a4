/**
 * Keyset paging over HTTP while the engine keeps trading between pages: no record is
 * repeated or skipped, and the pages of one /v1/orders listing are one snapshot.
 */
import type { BookOrder, Order } from '../../../src/protocol';
import { Engine } from '../../../src/simulator/engine/Engine';
import { roles } from '../engine/fixtures';
import { serve, type Harness } from './httpHarness';

const engine = new Engine({ seed: 51 });
engine.step(2_000);
const { trader, mm } = roles(engine);
let h: Harness;

beforeAll(async () => {
  h = await serve(engine);
});
afterAll(async () => {
  await h.close();
});

/** Follows next_cursor to the end, stepping the engine between pages. */
async function allPages<T>(path: (cursor?: string) => string, stepsBetween: number, maxPages = 200): Promise<{ pages: T[][]; sequences: (string | undefined)[] }> {
  const pages: T[][] = [];
  const sequences: (string | undefined)[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < maxPages; i++) {
    const r = await h.get(path(cursor));
    expect(r.status).toBe(200);
    pages.push(r.body.data);
    sequences.push(r.body.sequence);
    if (r.body.next_cursor === null) return { pages, sequences };
    cursor = r.body.next_cursor;
    engine.step(stepsBetween);
  }
  throw new Error('listing did not end');
}

const q = (c?: string) => (c ? `&cursor=${encodeURIComponent(c)}` : '');

describe('paging while the engine steps', () => {
  it('trades: newest first, every sequence exactly once down to the first trade', async () => {
    const { pages } = await allPages<{ sequence: string }>((c) => `/v1/trades?market_type=perp&market_id=0&limit=30${q(c)}`, 150);
    const seqs = pages.flat().map((t) => Number(t.sequence));
    expect(pages.length).toBeGreaterThan(3);
    seqs.forEach((s, i) => expect(s).toBe(seqs[0]! - i));
    expect(seqs[seqs.length - 1]).toBe(1);
  });

  it('fills: newest first, every sequence exactly once', async () => {
    const { pages, sequences } = await allPages<{ sequence: string }>((c) => `/v1/fills?address=${trader}&subaccount_id=0&role=all&limit=37${q(c)}`, 100);
    const seqs = pages.flat().map((f) => Number(f.sequence));
    expect(pages.length).toBeGreaterThan(2);
    seqs.forEach((s, i) => expect(s).toBe(seqs[0]! - i));
    expect(seqs[seqs.length - 1]).toBe(1);
    // Event listings carry the stream seq at the time of each page.
    for (let i = 1; i < sequences.length; i++) expect(BigInt(sequences[i]!)).toBeGreaterThanOrEqual(BigInt(sequences[i - 1]!));
  });

  it('orderBookOrders: book order kept, nothing repeated, nothing resting throughout skipped', async () => {
    const before = new Set(listBookOrders().map((o) => o.order_id));
    const { pages } = await allPages<BookOrder>((c) => `/v1/orderBookOrders?market_type=perp&market_id=0&limit=100${q(c)}`, 40);
    const rows = pages.flat();
    const ids = rows.map((o) => o.order_id);
    expect(new Set(ids).size).toBe(ids.length);
    const rank = (o: BookOrder) => (o.side === 'bid' ? -Number(o.price_ticks) : 1e12 + Number(o.price_ticks));
    for (let i = 1; i < rows.length; i++) expect(rank(rows[i]!)).toBeGreaterThanOrEqual(rank(rows[i - 1]!));
    const after = listBookOrders();
    const seen = new Set(ids);
    for (const o of after) if (before.has(o.order_id)) expect(seen.has(o.order_id)).toBe(true);
  });

  it('orders: every page of one listing shows the snapshot of the first page', async () => {
    const truth = new Set<string>();
    for (const m of engine.markets) for (const o of listBookOrders(m.market_type, m.market_id)) if (o.address === mm) truth.add(o.order_id);
    const { pages, sequences } = await allPages<Order>((c) => `/v1/orders?address=${mm}&subaccount_id=0&status=active&limit=100${q(c)}`, 60);
    expect(pages.length).toBeGreaterThan(5);
    expect(new Set(sequences).size).toBe(1);
    const ids = pages.flat().map((o) => o.order_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids)).toEqual(truth);
    // The engine moved on: a new listing is a newer snapshot.
    const fresh = await h.get(`/v1/orders?address=${mm}&subaccount_id=0&status=active&limit=100`);
    expect(BigInt(fresh.body.sequence)).toBeGreaterThan(BigInt(sequences[0]!));
  });

  it('transactions, blocks and depositors page to the end without repeats', async () => {
    for (const path of ['/v1/transactions?limit=7', '/v1/blocks?limit=5', '/v1/vaultDepositors?vault_id=1&limit=1', '/v1/blpDepositors?limit=2', '/v1/vaults?limit=1', `/v1/transfers?address=${trader}&subaccount_id=0&kind=all&limit=1`]) {
      const { pages } = await allPages<Record<string, unknown>>((c) => `${path}${q(c)}`, 0);
      const rows = pages.flat().map((r) => JSON.stringify(r));
      expect(rows.length).toBeGreaterThan(1);
      expect(new Set(rows).size).toBe(rows.length);
      const whole = await h.get(path.replace(/limit=\d+/, 'limit=100'));
      expect(pages.flat()).toEqual(whole.body.data);
    }
  });
});

/** Every resting order of a market, read in-process without stepping. */
function listBookOrders(type = 'perp', id = 0): BookOrder[] {
  const out: BookOrder[] = [];
  let cursor: string | null | undefined;
  do {
    const r = engine.query('orderBookOrders', { market_type: type, market_id: id, limit: 100, ...(cursor ? { cursor } : {}) }).body as { data: BookOrder[]; next_cursor: string | null };
    out.push(...r.data);
    cursor = r.next_cursor;
  } while (cursor);
  return out;
}
