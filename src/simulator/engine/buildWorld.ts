/**
 * Builds the whole simulated world from a seed: accounts and their funding history,
 * markets, the market maker's deep ladders, past funding rates, liquidations, vaults and
 * the liquidity pool, then a warm-up of order flow so trades, fills and positions exist
 * from the start. Nothing is published while building: every stream starts at seq 0 and
 * the snapshots at seq 0 show the built state. @internal
 */
import type { StreamHub } from '../StreamHub';
import { MARKET_SPECS, marketRecord, QUOTE_TOKEN } from './catalog';
import { ExplorerData, type VaultState } from './ExplorerData';
import { nextFundingRecord } from './funding';
import { OrderIdFactory } from './OrderIdFactory';
import { Matcher } from './Matcher';
import { MarketState } from './MarketState';
import { OrderFlow } from './OrderFlow';
import { Prng } from './Prng';
import { publishChanges } from './publishChanges';
import { seedAccounts, type SeededAccounts } from './seedAccounts';
import type { SubaccountState } from './SubaccountState';
import { World } from './World';

const HOUR_NS = 3_600_000_000_000n;

export interface BuildOptions {
  readonly seed: number;
  readonly now: () => bigint;
  readonly hub: StreamHub;
  readonly fundingIntervalEvents: number;
  readonly warmupEvents: number;
}

export interface BuiltWorld {
  readonly world: World;
  readonly matcher: Matcher;
  readonly flow: OrderFlow;
  readonly accounts: SeededAccounts;
}

export function buildWorld(o: BuildOptions): BuiltWorld {
  const root = new Prng(o.seed);
  const worldRng = root.fork(1);
  const flowRng = root.fork(2);
  const w = new World(o.hub, o.now, new OrderIdFactory(root.fork(3)), new ExplorerData());
  w.eventNs = o.now();
  const startNs = w.eventNs;
  const accounts = seedAccounts(w, worldRng, w.eventMs);
  const treasury = accounts.byRole.treasury[0]!;
  for (const spec of MARKET_SPECS) w.addMarket(new MarketState(spec, marketRecord(spec, treasury)));
  for (const m of w.markets) {
    if (!m.isPerp) continue;
    m.sampleMark(w.eventMs);
    for (let h = 24; h >= 1; h--) m.fundingRate = Number(nextFundingRecord(m, worldRng.int(-60, 60), startNs - BigInt(h) * HOUR_NS).funding_rate_100th_bps);
    m.predictedFundingRate = m.fundingRate;
  }
  seedLiquidations(w, accounts, worldRng, startNs);
  seedVaults(w, accounts, worldRng, startNs);
  const matcher = new Matcher(w);
  const flow = new OrderFlow(w, matcher, flowRng, accounts.marketMaker, accounts.traders, { fundingIntervalEvents: o.fundingIntervalEvents });
  flow.seedLadders();
  // Materialize every market and subaccount record (without publishing).
  for (const m of w.markets) w.touchMarket(m);
  for (const a of w.accounts.values()) for (const s of a.subaccounts.values()) w.touchSub(s);
  for (const a of w.accounts.values()) for (const s of a.subaccounts.values()) for (const token of s.balances.keys()) s.changedBalances.add(token);
  publishChanges(w, false);
  for (let i = 0; i < o.warmupEvents; i++) {
    w.eventNs = o.now();
    flow.event();
    publishChanges(w, false);
  }
  return { world: w, matcher, flow, accounts };
}

function seedLiquidations(w: World, accounts: SeededAccounts, rng: Prng, startNs: bigint): void {
  const [a, b, c, d] = accounts.byRole.trader as [string, string, string, string];
  const plan: [string, number, number][] = [[d, 0, 0], [c, 1, 1], [b, 0, 0], [a, 1, 1]];
  plan.forEach(([address, sub, marketId], i) => {
    const m = w.perp(marketId)!;
    const size = rng.int(5, 200);
    const price = m.spec.initialPriceTicks + rng.int(-500, 500);
    const fee = (m.notional(price, size) * BigInt(m.record.liquidation_fee_100th_bps ?? 0)) / 1_000_000n;
    w.explorer.liquidations.push({
      sequence: String(i + 1),
      timestamp_ns: (startNs - BigInt(96 - i * 20) * HOUR_NS).toString(),
      market_id: marketId,
      address,
      subaccount_id: sub,
      size_base_lots: String(size),
      price_ticks: String(price),
      fee_quote_lots: fee.toString(),
    });
  });
}

function seedVaults(w: World, accounts: SeededAccounts, rng: Prng, startNs: bigint): void {
  const [a, b, c, d] = accounts.byRole.trader as [string, string, string, string];
  const treasury = accounts.byRole.treasury[0]!;
  const idle = accounts.byRole.idle[0]!;
  const sub = (address: string, id: number): SubaccountState => w.subaccount(address, id)!;
  const depositors = (vaultId: bigint, addresses: string[]) =>
    addresses.sort().map((address) => {
      const deposited = BigInt(rng.int(1_000, 250_000)) * 1_000_000n;
      return { vault_id: vaultId.toString(), address, shares: ((deposited * 97n) / 100n).toString(), deposited_quote_lots: deposited.toString() };
    });
  const vaults: VaultState[] = [
    { id: 1n, name: 'Delta-Neutral Basis', trading: sub(treasury, 1), createdNs: startNs - 120n * HOUR_NS, depositors: depositors(1n, [a, b, c]) },
    { id: 2n, name: 'Momentum Alpha', trading: sub(a, 1), createdNs: startNs - 60n * HOUR_NS, depositors: depositors(2n, [d, treasury, idle]) },
  ];
  w.explorer.vaults.push(...vaults);
  const blpDepositors = [b, d, treasury].sort().map((address) => {
    const deposited = BigInt(rng.int(10_000, 900_000)) * 1_000_000n;
    return { address, shares: ((deposited * 95n) / 100n).toString(), deposited_token_atoms: deposited.toString() };
  });
  const total = blpDepositors.reduce((s, x) => s + BigInt(x.deposited_token_atoms), 0n);
  w.explorer.blp = { tokenId: QUOTE_TOKEN, totalValueAtoms: (total * 104n) / 100n, aprBps: 1_250, depositors: blpDepositors };
}
