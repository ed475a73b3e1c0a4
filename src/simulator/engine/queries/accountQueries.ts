/**
 * Account operations: account, balances, positions, orders, fills, funding payments, PnL
 * and transfers. Lists are newest first; PnL follows the candle window rule (newest
 * `count_back` buckets of [start, end), oldest first). @internal
 */
import type { Order, ParamValues, Resolution } from '../../../protocol';
import { decodeCursor, encodeCursor } from '../cursor';
import { invalidParam, notFound } from '../QueryError';
import type { SeqLog } from '../SeqLog';
import type { SubaccountState } from '../SubaccountState';
import { accountOf, checkMarketFilter, marketTypeOf, num, seqOf, str, subaccountOf, type QueryAnswer, type QueryContext, type QueryHandler } from './common';

const scopeOf = (s: SubaccountState) => ({ address: s.address, subaccount_id: s.id });

const sub = (ctx: QueryContext, p: ParamValues) => subaccountOf(ctx.w, str(p, 'address')!, num(p, 'subaccount_id')!);

/** One newest-first keyset page of a per-subaccount log. */
function logPage<T>(op: 'fills' | 'fundingPayments' | 'transfers', log: SeqLog<T>, p: ParamValues, pred?: (item: T) => boolean): { data: T[]; nextCursor: string | null } {
  const raw = str(p, 'cursor');
  const before = raw === undefined ? undefined : decodeCursor(op, raw, { s: 'number' }).s;
  const page = log.pageNewestFirst(before, num(p, 'limit')!, pred);
  return { data: page.rows, nextCursor: page.next === undefined ? null : encodeCursor(op, { s: page.next }) };
}

const STATUS_FILTERS: Record<string, (o: Order) => boolean> = {
  active: (o) => o.status === 'open',
  history: (o) => o.status !== 'open',
  all: () => true,
};

function orders(ctx: QueryContext, p: ParamValues): QueryAnswer {
  const s = sub(ctx, p);
  const type = marketTypeOf(p);
  const mid = num(p, 'market_id');
  checkMarketFilter(ctx.w, type, mid);
  const coid = str(p, 'client_order_id');
  const limit = num(p, 'limit') ?? Number.MAX_SAFE_INTEGER;
  const key = JSON.stringify([s.address, s.id, p.status, type, mid, coid]);
  const raw = str(p, 'cursor');
  if (raw !== undefined) {
    const c = decodeCursor('orders', raw, { l: 'string', i: 'number' });
    const listing = ctx.listings.get(c.l, key);
    if (!listing) throw invalidParam('cursor', 'unknown or expired listing, or a cursor of another listing; request the first page again');
    const rows = listing.rows.slice(c.i, c.i + limit);
    const next = c.i + limit < listing.rows.length ? encodeCursor('orders', { l: c.l, i: c.i + limit }) : null;
    return { data: rows, nextCursor: next, sequence: listing.sequence };
  }
  const sequence = seqOf(ctx.w, 'orders', scopeOf(s));
  const statusOk = STATUS_FILTERS[str(p, 'status')!]!;
  const all = [...s.orderRecords.values()].reverse();
  if (coid !== undefined && !all.some((o) => o.client_order_id === coid)) throw notFound(`unknown client order id ${coid} for subaccount ${s.id} of ${s.address}`);
  const rows = all.filter((o) => statusOk(o) && (type === undefined || o.market_type === type) && (mid === undefined || o.market_id === mid) && (coid === undefined || o.client_order_id === coid));
  if (rows.length <= limit) return { data: rows, nextCursor: null, sequence };
  const id = ctx.listings.store(key, rows, sequence);
  return { data: rows.slice(0, limit), nextCursor: encodeCursor('orders', { l: id, i: limit }), sequence };
}

export const accountQueries = {
  account: (ctx, p) => {
    const a = accountOf(ctx.w, str(p, 'address')!);
    const id = num(p, 'subaccount_id');
    const subs = id === undefined ? [...a.subaccounts.values()] : [subaccountOf(ctx.w, a.address, id)];
    // One subaccount: its stream's seq. All of them: the sum of their seqs.
    const sequence = subs.reduce((acc, s) => acc + seqOf(ctx.w, 'account', scopeOf(s)), 0n);
    return { data: { address: a.address, subaccounts: subs.map((s) => s.record) }, sequence };
  },
  balances: (ctx, p) => {
    const s = sub(ctx, p);
    return { data: [...s.balanceRecords.values()], sequence: seqOf(ctx.w, 'balances', scopeOf(s)) };
  },
  positions: (ctx, p) => {
    const s = sub(ctx, p);
    const mid = num(p, 'market_id');
    checkMarketFilter(ctx.w, undefined, mid);
    const data = [...s.positionRecords.values()].filter((r) => mid === undefined || r.market_id === mid);
    return { data, sequence: seqOf(ctx.w, 'positions', scopeOf(s)) };
  },
  orders,
  fills: (ctx, p) => {
    const s = sub(ctx, p);
    const type = marketTypeOf(p);
    const mid = num(p, 'market_id');
    checkMarketFilter(ctx.w, type, mid);
    const role = str(p, 'role');
    const page = logPage('fills', s.fills, p, (f) => (role === 'all' || f.role === role) && (type === undefined || f.market_type === type) && (mid === undefined || f.market_id === mid));
    return { ...page, sequence: seqOf(ctx.w, 'fills', scopeOf(s)) };
  },
  fundingPayments: (ctx, p) => {
    const s = sub(ctx, p);
    const mid = num(p, 'market_id');
    checkMarketFilter(ctx.w, undefined, mid);
    return logPage('fundingPayments', s.fundingPayments, p, (f) => mid === undefined || f.market_id === mid);
  },
  pnl: (ctx, p) => {
    const s = sub(ctx, p);
    const rows = s.pnl[str(p, 'resolution') as Resolution].window(num(p, 'start_timestamp')!, num(p, 'end_timestamp')!, num(p, 'count_back')!);
    return { data: rows.map((b) => ({ open_time_ms: b.t, equity_quote_lots: b.equity.toString(), realized_pnl_quote_lots: b.realized.toString(), unrealized_pnl_quote_lots: b.unrealized.toString() })) };
  },
  transfers: (ctx, p) => {
    const s = sub(ctx, p);
    const kind = str(p, 'kind');
    return logPage('transfers', s.transfers, p, (t) => kind === 'all' || t.kind === kind);
  },
} satisfies Record<string, QueryHandler>;
