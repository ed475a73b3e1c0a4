/**
 * The small, static part of the world: transactions and blocks (explorer), liquidations,
 * vaults and their depositors, the liquidity pool and its depositors. Seeded once; every
 * address, token and market it names exists. @internal
 */
import type { Block, BlpDepositor, Liquidation, Transaction, VaultDepositor } from '../../protocol';
import { SeqLog } from './SeqLog';
import type { SubaccountState } from './SubaccountState';

export interface IndexedTransaction {
  /** Position in the chain (block, then order in block): the keyset of transaction listings. */
  readonly index: number;
  readonly tx: Transaction;
}

export interface VaultState {
  readonly id: bigint;
  readonly name: string;
  /** The manager's subaccount that trades for the vault: its equity is the vault's. */
  readonly trading: SubaccountState;
  readonly createdNs: bigint;
  /** Sorted by address (the keyset of depositor listings). */
  readonly depositors: VaultDepositor[];
}

export interface BlpState {
  readonly tokenId: string;
  readonly totalValueAtoms: bigint;
  readonly aprBps: number;
  /** Sorted by address. */
  readonly depositors: BlpDepositor[];
}

export class ExplorerData {
  readonly transactions = new SeqLog<IndexedTransaction>((t) => t.index, Number.MAX_SAFE_INTEGER);
  readonly txByHash = new Map<string, Transaction>();
  readonly blocks = new SeqLog<Block>((b) => Number(b.rollup_height), Number.MAX_SAFE_INTEGER);
  readonly liquidations = new SeqLog<Liquidation>((l) => Number(l.sequence), Number.MAX_SAFE_INTEGER);
  readonly vaults: VaultState[] = [];
  blp!: BlpState;
  /** A hash the exchange rejected at admission: never indexed, so lookups answer 404. */
  rejectedHash = '';
  /** A forced-inclusion transaction that executed and reverted (status `failed`). */
  failedHash = '';

  addTransaction(tx: Transaction): void {
    this.transactions.push({ index: this.transactions.size, tx });
    this.txByHash.set(tx.hash, tx);
  }
}
