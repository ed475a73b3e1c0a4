/** The IPC messages between a benchmark and its simulator process (simProcess.ts). */
import type { OperationName, ParamValues } from '../../src/protocol';
import type { SimulatorOptions } from '../../src/simulator';

export type SimCommand =
  /** Start a `Simulator` with these options (listening on 127.0.0.1, port 0). */
  | { cmd: 'init'; options: SimulatorOptions }
  /** `faults.resyncStream(key)`: the next update of the stream is skipped, `resync_required` sent before the one after. */
  | { cmd: 'resync'; key: string }
  /** Stop the order flow (the servers keep answering). */
  | { cmd: 'pause' }
  | { cmd: 'resume' }
  /** The true answer of a REST operation, in process. */
  | { cmd: 'truth'; name: OperationName; params: ParamValues }
  /** The engine's subaccounts and markets, and the feed's counters. */
  | { cmd: 'stats' }
  | { cmd: 'exit' };

export interface SimStats {
  /** Every subaccount of the simulated world. */
  readonly subaccounts: { address: string; subaccount_id: number }[];
  /** Every market: type and id. */
  readonly markets: { market_type: 'perp' | 'spot'; market_id: number }[];
  /** Feed sockets dropped because their outgoing queue overflowed. */
  readonly overflowDrops: number;
  /** Server subscriptions over every open connection. */
  readonly subscriptions: number;
  readonly connections: number;
  /** CPU time (user + system, µs) the simulator process used since it started. */
  readonly cpuUs: number;
}

export type SimReply =
  | { type: 'ready'; restUrl: string; wsUrl: string }
  | { type: 'ok' }
  | { type: 'truth'; status: number; body: unknown }
  | { type: 'stats'; stats: SimStats }
  | { type: 'error'; message: string };
