/**
 * One order book replica of a client (a BusClient in these tests) watched: its latest
 * emission, every status it went through, and a checkpoint against the paused simulator's
 * truth (live at the truth's seq, then compared field by field). Waits are for events, bounded
 * only to catch a hang.
 */
import type { Subscription } from 'rxjs';
import type { ExchangeClient } from '../../src/client';
import type { ReplicaState } from '../../src/replicas';
import type { Simulator } from '../../src/simulator';
import { diffState, truthOf } from '../helpers/truth';
import { waitUntil } from './busHarness';

export class BookWatch {
  latest?: ReplicaState<unknown>;
  /** Statuses in the order they came (repeats collapsed). */
  readonly statuses: string[] = [];
  /** Emissions while live. */
  liveEmissions = 0;
  errored?: unknown;
  private readonly sub: Subscription;

  constructor(
    client: ExchangeClient,
    readonly marketId: number,
  ) {
    this.sub = client.orderBook({ market_type: 'perp', market_id: marketId }).subscribe({
      next: (s) => {
        this.latest = s as ReplicaState<unknown>;
        if (this.statuses[this.statuses.length - 1] !== s.status) this.statuses.push(s.status);
        if (s.status === 'live') this.liveEmissions++;
      },
      error: (e: unknown) => (this.errored = e),
    });
  }

  get scope(): { market_id: number; is_perps: boolean } {
    return { market_id: this.marketId, is_perps: true };
  }

  get status(): string | undefined {
    return this.latest?.status;
  }

  /** Waits until the replica's status is `status`. */
  async until(status: string, what = `the book ${status}`): Promise<void> {
    await waitUntil(() => this.latest?.status === status, what);
  }

  /**
   * Pauses the simulator, waits until the replica is live at the truth's seq, and returns its
   * differences from the truth (empty: exact); the simulator is resumed unless `keepPaused`.
   */
  async diffAtCheckpoint(sim: Simulator, keepPaused = false): Promise<string[]> {
    sim.pause();
    const truth = truthOf(sim, 'book', this.scope);
    await waitUntil(() => this.latest?.status === 'live' && this.latest.seq === truth.sequence, `the book live at seq ${truth.sequence} (now ${this.latest?.status} at ${this.latest?.seq})`);
    const diff = diffState('book', this.scope, this.latest!.state, truth.data);
    if (!keepPaused) sim.resume();
    return diff;
  }

  stop(): void {
    this.sub.unsubscribe();
  }
}
