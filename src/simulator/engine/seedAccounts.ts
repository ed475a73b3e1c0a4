/**
 * Seeds the accounts and the chain history that funds them: addresses (seeded bytes),
 * subaccounts with statuses and delegations, deposits, withdrawals and transfers that
 * produce the opening balances, and the transactions and blocks that carry them (one of
 * them a reverted forced inclusion, plus one hash rejected at admission). @internal
 */
import { ADDRESS_BYTES, encodeBase58, type Delegation, type SubaccountStatus, type Transaction, type TransferKind } from '../../protocol';
import { QUOTE_TOKEN } from './catalog';
import type { ExplorerData } from './ExplorerData';
import type { Prng } from './Prng';
import { SubaccountState } from './SubaccountState';
import type { World } from './World';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** A base58 address of 32 seeded bytes (first byte non-zero, so it never starts with '1'). */
function makeAddress(rng: Prng): string {
  const b = rng.bytes(ADDRESS_BYTES);
  b[0] = b[0]! | 0x80;
  return encodeBase58(b);
}

/** A 32-byte hash as 64 lowercase hex characters (transaction and block hashes). */
function makeHash(rng: Prng): string {
  return Buffer.from(rng.bytes(32)).toString('hex');
}

/** Who an account is in the simulated world. */
export type AccountRole = 'market_maker' | 'trader' | 'treasury' | 'idle';

interface SubPlan {
  readonly id: number;
  readonly status?: SubaccountStatus;
  readonly leverage: number;
  /** Trades in the order flow. */
  readonly trades?: boolean;
  /** Opening deposits per token, in atoms. */
  readonly deposits?: Readonly<Record<string, bigint>>;
}

const MM_FUNDS = { USDC: 5_000_000_000_000_000n, SOL: 5_000_000_000_000_000n, BTC: 10_000_000_000_000n };
const TRADER_FUNDS = { USDC: 2_000_000_000_000n, SOL: 20_000_000_000_000n, BTC: 20_000_000_000n };

const ACCOUNT_PLAN: readonly { role: AccountRole; subs: readonly SubPlan[] }[] = [
  { role: 'market_maker', subs: [{ id: 0, leverage: 10, deposits: MM_FUNDS }] },
  { role: 'trader', subs: [{ id: 0, leverage: 10, trades: true, deposits: TRADER_FUNDS }, { id: 1, leverage: 5, trades: true, deposits: TRADER_FUNDS }] },
  { role: 'trader', subs: [{ id: 0, leverage: 20, trades: true, deposits: TRADER_FUNDS }] },
  { role: 'trader', subs: [{ id: 0, leverage: 10, trades: true, deposits: TRADER_FUNDS }, { id: 1, leverage: 3, trades: true, deposits: TRADER_FUNDS }, { id: 2, leverage: 10, status: 'restricted', deposits: { USDC: 25_000_000_000n } }] },
  { role: 'trader', subs: [{ id: 0, leverage: 8, trades: true, deposits: TRADER_FUNDS }] },
  { role: 'treasury', subs: [{ id: 0, leverage: 1, deposits: { USDC: 100_000_000_000n } }, { id: 1, leverage: 4, trades: true, deposits: TRADER_FUNDS }] },
  { role: 'idle', subs: [{ id: 0, leverage: 1 }, { id: 1, leverage: 1, status: 'closed' }] },
];

export interface SeededAccounts {
  readonly byRole: Readonly<Record<AccountRole, string[]>>;
  readonly marketMaker: SubaccountState;
  readonly traders: SubaccountState[];
}

interface ChainEvent {
  readonly ms: number;
  readonly failed?: string;
  readonly apply?: (ms: number, hash: string) => void;
}

/** Creates every account in `w` and the explorer history behind their balances. */
export function seedAccounts(w: World, rng: Prng, startMs: number): SeededAccounts {
  const genesisMs = startMs - 7 * DAY_MS;
  const byRole: Record<AccountRole, string[]> = { market_maker: [], trader: [], treasury: [], idle: [] };
  const traders: SubaccountState[] = [];
  const events: ChainEvent[] = [];
  const addresses = ACCOUNT_PLAN.map(() => makeAddress(rng));
  const delegationsFor = (acct: number, sub: number): Delegation[] => {
    if (acct === 1 && sub === 0) return [{ delegate: addresses[2]!, permissions: ['place_orders', 'cancel_orders'], expires_at_ns: String(BigInt(startMs + 30 * DAY_MS) * 1_000_000n), name: 'hedging-bot' }];
    if (acct === 3 && sub === 0) return [{ delegate: addresses[5]!, permissions: ['cancel_orders'] }];
    return [];
  };
  ACCOUNT_PLAN.forEach((plan, a) => {
    const address = addresses[a]!;
    byRole[plan.role].push(address);
    const subs = new Map<number, SubaccountState>();
    w.accounts.set(address, { address, subaccounts: subs });
    for (const sp of plan.subs) {
      const createdMs = genesisMs + a * 6 * HOUR_MS + sp.id * HOUR_MS;
      const sub = new SubaccountState(address, sp.id, sp.status ?? 'active', BigInt(createdMs) * 1_000_000n, delegationsFor(a, sp.id), sp.leverage);
      subs.set(sp.id, sub);
      if (sp.trades) traders.push(sub);
      for (const [token, amount] of Object.entries(sp.deposits ?? {})) {
        events.push({ ms: createdMs + 10 * 60_000, apply: (ms, hash) => transfer(sub, 'deposit', token, amount, ms, hash) });
      }
    }
  });
  const sub = (a: number, s: number) => w.accounts.get(addresses[a]!)!.subaccounts.get(s)!;
  const day = (d: number, h: number) => genesisMs + d * DAY_MS + h * HOUR_MS;
  events.push(
    { ms: day(2, 3), apply: (ms, hash) => transfer(sub(2, 0), 'withdrawal', QUOTE_TOKEN, -10_000_000_000n, ms, hash) },
    { ms: day(3, 7), apply: (ms, hash) => internal(sub(1, 0), sub(1, 1), 5_000_000_000n, ms, hash) },
    { ms: day(4, 1), apply: (ms, hash) => external(sub(3, 0), sub(4, 0), 3_000_000_000n, ms, hash) },
    { ms: day(5, 9), failed: 'Transaction reverted: insufficient margin for order (forced inclusion)' },
  );
  for (let i = 0; i < 24; i++) events.push({ ms: genesisMs + 2 * DAY_MS + rng.int(0, 4 * DAY_MS) });
  writeChain(w.explorer, rng, events);
  w.explorer.rejectedHash = makeHash(rng);
  return { byRole, marketMaker: sub(0, 0), traders };
}

/** Records a transfer that changes `sub`'s `token` balance by `delta` atoms. */
function transfer(sub: SubaccountState, kind: TransferKind, token: string, delta: bigint, ms: number, hash: string, counterparty?: string): void {
  const b = sub.balance(token);
  const abs = delta < 0n ? -delta : delta;
  b.total += delta;
  if (kind === 'deposit') b.deposited += abs;
  if (kind === 'withdrawal') b.withdrawn += abs;
  sub.transferSeq += 1;
  sub.transfers.push({ sequence: String(sub.transferSeq), timestamp_ns: String(BigInt(ms) * 1_000_000n), kind, token_id: token, amount_token_atoms: abs.toString(), ...(counterparty ? { counterparty } : {}), transaction_hash: hash });
}

function internal(from: SubaccountState, to: SubaccountState, amount: bigint, ms: number, hash: string): void {
  transfer(from, 'internal_transfer', QUOTE_TOKEN, -amount, ms, hash);
  transfer(to, 'internal_transfer', QUOTE_TOKEN, amount, ms, hash);
}

function external(from: SubaccountState, to: SubaccountState, amount: bigint, ms: number, hash: string): void {
  transfer(from, 'external_transfer', QUOTE_TOKEN, -amount, ms, hash, to.address);
  transfer(to, 'external_transfer', QUOTE_TOKEN, amount, ms, hash, from.address);
}

/** Orders the events in time, packs them into blocks and indexes the transactions. */
function writeChain(ex: ExplorerData, rng: Prng, events: ChainEvent[]): void {
  events.sort((a, b) => a.ms - b.ms);
  let height = 1_000_000;
  let i = 0;
  while (i < events.length) {
    const blockMs = events[i]!.ms;
    const count = Math.min(events.length - i, rng.int(1, 3));
    height += rng.int(1, 40);
    for (let j = 0; j < count; j++, i++) {
      const e = events[i]!;
      const hash = makeHash(rng);
      const tx: Transaction = e.failed
        ? { hash, status: 'failed', error: e.failed, block: String(height), success: false, timestamp_ms: blockMs }
        : { hash, status: 'committed', block: String(height), success: true, timestamp_ms: blockMs };
      if (e.failed) ex.failedHash = hash;
      ex.addTransaction(tx);
      e.apply?.(blockMs, hash);
    }
    ex.blocks.push({ rollup_height: String(height), hash: makeHash(rng), timestamp_ms: blockMs, transaction_count: count });
  }
}
