/**
 * What the live view shows: one perp and one spot market (given, or the first active of
 * each type), one subaccount (given, or with a simulator one that trades), and the token
 * decimals its balances need. @internal
 */
import type { ExchangeClient } from '../../client';
import type { Market } from '../../protocol';
import type { Simulator } from '../../simulator/Simulator';
import { CliUsageError } from '../CliUsageError';
import type { AccountTarget } from './ViewModel';

/** Options of {@link pickTargets}. */
export interface PickOptions {
  /** Perp market id. @default the first active perp market */
  readonly perp?: number;
  /** Spot market id. @default the first active spot market */
  readonly spot?: number;
  /** Account address. @default with a simulator: a subaccount that trades; otherwise none (no account panel) */
  readonly address?: string;
  /** @default 0 */
  readonly subaccountId?: number;
}

export interface ViewTargets {
  /** The markets shown (perp first). */
  readonly markets: Market[];
  /** Every listed market (to name the markets of positions and orders). */
  readonly allMarkets: Market[];
  readonly account: AccountTarget | undefined;
  readonly tokenDecimals: Map<string, number>;
}

function pick(all: readonly Market[], type: 'perp' | 'spot', id: number | undefined): Market | undefined {
  if (id === undefined) return all.find((m) => m.market_type === type && m.status === 'active') ?? all.find((m) => m.market_type === type);
  const m = all.find((x) => x.market_type === type && x.market_id === id);
  if (!m) throw new CliUsageError(`no ${type} market with id ${id}; ${type} markets: ${all.filter((x) => x.market_type === type).map((x) => `${x.market_id} (${x.symbol})`).join(', ') || 'none'}`);
  return m;
}

/** A simulated subaccount worth watching: it holds positions and a few open orders. */
function simulatorAccount(sim: Simulator): AccountTarget | undefined {
  const count = (op: 'positions' | 'orders', address: string, id: number): number => {
    const r = sim.truth(op, op === 'orders' ? { address, subaccount_id: id, status: 'active', limit: 100 } : { address, subaccount_id: id });
    return r.status === 200 ? (r.body as { data: unknown[] }).data.length : 0;
  };
  let fallback: AccountTarget | undefined;
  for (const a of sim.engine.accounts) {
    for (const id of a.subaccount_ids) {
      const orders = count('orders', a.address, id);
      if (count('positions', a.address, id) > 0 && orders > 0 && orders <= 30) return { address: a.address, subaccount_id: id };
      fallback ??= { address: a.address, subaccount_id: id };
    }
  }
  return fallback;
}

async function tokenDecimals(client: ExchangeClient, markets: readonly Market[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  // The markets name their tokens' decimals; /v1/tokens (when served) is authoritative.
  for (const m of markets) {
    out.set(m.base_token, m.base_decimals);
    out.set(m.quote_token, m.quote_decimals);
  }
  try {
    for (const t of (await client.rest.tokens()).data) out.set(t.token_id, t.decimals);
  } catch {
    // Not fatal: balances of unknown tokens are shown in atoms.
  }
  return out;
}

/**
 * @throws CliUsageError when a requested market does not exist or there is no market at all;
 *   REST errors of `/v1/markets` as they come.
 */
export async function pickTargets(client: ExchangeClient, sim: Simulator | undefined, options: PickOptions): Promise<ViewTargets> {
  const allMarkets = (await client.rest.markets({ market_type: 'all' })).data;
  const markets = [pick(allMarkets, 'perp', options.perp), pick(allMarkets, 'spot', options.spot)].filter((m): m is Market => m !== undefined);
  if (markets.length === 0) throw new CliUsageError('the exchange lists no market');
  const account = options.address !== undefined ? { address: options.address, subaccount_id: options.subaccountId ?? 0 } : sim ? simulatorAccount(sim) : undefined;
  return { markets, allMarkets, account, tokenDecimals: await tokenDecimals(client, allMarkets) };
}
