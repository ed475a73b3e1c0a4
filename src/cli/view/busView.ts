/**
 * `view --nats URL`: the live view drawn from the bus (what `ReplicaRelay`s publish) instead
 * of the exchange. The markets shown are the ones the relays carry (`--perp`/`--spot` pick
 * among them), labelled with the market list a relay wrote to the KV bucket; the account is
 * `--address` (the relays must carry it: `relay --accounts`) or the first one carried. @internal
 */
import type { Market } from '../../protocol';
import { redactNatsUrl, type NatsAuth } from '../../nats/natsAuth';
import { CliUsageError } from '../CliUsageError';
import type { Target } from '../target';
import type { PickOptions, ViewTargets } from './pickTargets';

/** How long to wait for the first relay heartbeats. */
const DISCOVERY_MS = 5000;

export interface BusViewOptions extends PickOptions {
  readonly natsUrl: string;
  /** Credentials and TLS of the bus connection. Never printed. @default none */
  readonly natsAuth?: NatsAuth;
  /** For `client.rest` only. @default none */
  readonly restUrl?: string;
}

/**
 * Opens a BusClient and picks what to show from what the relays carry.
 * @throws CliUsageError when no relay answers, or a requested market is not carried
 */
export async function openBusView(options: BusViewOptions): Promise<{ target: Target; targets: ViewTargets }> {
  const { BusClient } = await import('../../nats');
  const client = new BusClient({ natsUrl: options.natsUrl, ...(options.natsAuth !== undefined ? { natsAuth: options.natsAuth } : {}), ...(options.restUrl !== undefined ? { restUrl: options.restUrl } : {}) });
  const shown = redactNatsUrl(options.natsUrl);
  try {
    const carried = await client.streams({ waitMs: DISCOVERY_MS });
    if (carried.length === 0) throw new CliUsageError(`no relay heartbeat on ${shown} within ${DISCOVERY_MS} ms: start one with exchange-replica relay --rest-url URL --nats ${shown}`);
    const meta = await client.bus.marketsMeta();
    const allMarkets = (meta?.markets ?? []) as Market[];
    const books = carried.filter((s) => s.channel === 'book').map((s) => ({ id: Number(s.scope['market_id']), perp: s.scope['is_perps'] === true }));
    const pick = (perp: boolean, id: number | undefined): Market | undefined => {
      const type = perp ? 'perp' : 'spot';
      const ids = books.filter((b) => b.perp === perp).map((b) => b.id);
      if (id !== undefined && !ids.includes(id)) throw new CliUsageError(`the relays carry no ${type} market ${id}; ${type} markets carried: ${ids.join(', ') || 'none'}`);
      const chosen = id ?? ids[0];
      if (chosen === undefined) return undefined;
      return allMarkets.find((m) => m.market_type === type && m.market_id === chosen) ?? placeholderMarket(type, chosen);
    };
    const markets = [pick(true, options.perp), pick(false, options.spot)].filter((m): m is Market => m !== undefined);
    if (markets.length === 0) throw new CliUsageError('the relays carry no order book');
    const carriedAccount = carried.find((s) => s.channel === 'account');
    const account =
      options.address !== undefined
        ? { address: options.address, subaccount_id: options.subaccountId ?? 0 }
        : carriedAccount
          ? { address: String(carriedAccount.scope['address']), subaccount_id: Number(carriedAccount.scope['subaccount_id']) }
          : undefined;
    const tokenDecimals = new Map<string, number>();
    for (const m of allMarkets) {
      tokenDecimals.set(m.base_token, m.base_decimals);
      tokenDecimals.set(m.quote_token, m.quote_decimals);
    }
    for (const t of (meta?.tokens ?? []) as { token_id: string; decimals: number }[]) tokenDecimals.set(t.token_id, t.decimals);
    let closing: Promise<void> | undefined;
    const target: Target = { client, sim: undefined, label: `bus ${shown}`, close: () => (closing ??= client.close()) };
    return { target, targets: { markets, allMarkets: allMarkets.length > 0 ? allMarkets : markets, account, tokenDecimals } };
  } catch (e) {
    await client.close();
    throw e;
  }
}

/** A market no relay described (no metadata in the bucket): shown with its id and raw ticks. */
function placeholderMarket(type: 'perp' | 'spot', id: number): Market {
  return {
    market_type: type,
    market_id: id,
    symbol: `${type}#${id}`,
    base_token: 'base',
    quote_token: 'quote',
    base_decimals: 0,
    quote_decimals: 0,
    base_atoms_per_base_lot: '1',
    quote_atoms_per_quote_lot: '1',
    base_lots_per_base_unit: '1',
    quote_lots_per_quote_unit: '1',
    quote_lots_per_base_unit_per_tick: '1',
    default_maker_fee_100th_bps: 0,
    default_taker_fee_100th_bps: 0,
    min_size_base_lots: '1',
    min_order_notional_quote_lots: '0',
    status: 'active',
  };
}
