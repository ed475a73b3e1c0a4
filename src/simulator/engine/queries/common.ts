/** Shared pieces of the query handlers: the context, answers and lookups that 404. @internal */
import { streamKey, type ChannelName, type MarketType, type ParamValues, type Scope } from '../../../protocol';
import { notFound } from '../QueryError';
import type { MarketState } from '../MarketState';
import type { OrderListings } from './OrderListings';
import type { SubaccountState } from '../SubaccountState';
import type { AccountState, World } from '../World';

export interface QueryContext {
  readonly w: World;
  readonly listings: OrderListings;
  /** Whether the deployment serves the feed (reported by `/v1/status`). */
  readonly feedAvailable: boolean;
}

/** What a handler answers; the engine wraps it in the envelope (or returns `data` bare). */
export interface QueryAnswer {
  readonly data: unknown;
  /** Paged operations: the next page's cursor, or null on the last page. */
  readonly nextCursor?: string | null;
  /** Snapshot operations: the stream seq the answer includes. */
  readonly sequence?: bigint;
}

export type QueryHandler = (ctx: QueryContext, p: ParamValues) => QueryAnswer;

export const str = (p: ParamValues, k: string): string | undefined => (p[k] === undefined ? undefined : String(p[k]));
export const num = (p: ParamValues, k: string): number | undefined => (p[k] === undefined ? undefined : Number(p[k]));

export function seqOf(w: World, channel: ChannelName, scope: Scope): bigint {
  return w.hub.seq(streamKey(channel, scope));
}

/** The market of that type and id. @throws QueryError 404 */
export function marketOf(w: World, type: MarketType, id: number): MarketState {
  const m = w.market(type, id);
  if (!m) throw notFound(`unknown ${type} market ${id}`);
  return m;
}

/** A perp market. @throws QueryError 404 */
export function perpOf(w: World, id: number): MarketState {
  const m = w.perp(id);
  if (!m) throw notFound(`unknown perp market ${id}`);
  return m;
}

/**
 * Checks optional `market_type` / `market_id` filters name a listed market.
 * @throws QueryError 404
 */
export function checkMarketFilter(w: World, type: MarketType | undefined, id: number | undefined): void {
  if (id === undefined) return;
  const m = w.marketsById.get(id);
  if (!m || (type !== undefined && m.spec.type !== type)) throw notFound(`unknown ${type ?? ''}${type ? ' ' : ''}market ${id}`);
}

export function accountOf(w: World, address: string): AccountState {
  const a = w.accounts.get(address);
  if (!a) throw notFound(`unknown account ${address}`);
  return a;
}

export function subaccountOf(w: World, address: string, id: number): SubaccountState {
  const s = accountOf(w, address).subaccounts.get(id);
  if (!s) throw notFound(`unknown subaccount ${id} of account ${address}`);
  return s;
}

/** Unix ms of a TimestampNs string. */
export function nsToMs(ns: string): number {
  return Number(BigInt(ns) / 1_000_000n);
}

export function marketTypeOf(p: ParamValues, k = 'market_type'): MarketType | undefined {
  return p[k] as MarketType | undefined;
}
