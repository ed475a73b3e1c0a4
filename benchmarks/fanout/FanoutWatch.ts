/**
 * What the fan-out benchmark's subscribers saw: per subscription, the latest state (for
 * state replicas and combined account replicas), counts of emissions, event items and gap
 * markers, and every error. Cheap per emission, so it adds little to the CPU measured.
 */
import type { Subscription } from 'rxjs';
import type { ExchangeClient } from '../../src/client';
import type { PlannedSubscription } from './fanoutPlan';

export interface Seen {
  readonly plan: PlannedSubscription;
  emissions: number;
  status?: string;
  seq?: bigint;
  state?: unknown;
  gaps: number;
  /** Emissions whose status was not `live` while `strict` was on. */
  notLive: number;
}

export class FanoutWatch {
  readonly seen: Seen[] = [];
  readonly errors: string[] = [];
  /** While true, an emission with a status other than `live` counts in `notLive`. */
  strict = false;
  private readonly subs: Subscription[] = [];

  open(client: ExchangeClient, plan: readonly PlannedSubscription[]): void {
    for (const p of plan) {
      const s: Seen = { plan: p, emissions: 0, gaps: 0, notLive: 0 };
      this.seen.push(s);
      this.subs.push(
        p.observe(client).subscribe({
          next: (e) => this.onNext(s, e as Record<string, unknown>),
          error: (err: unknown) => this.errors.push(`${p.kind} ${p.key}: ${err instanceof Error ? err.message : String(err)}`),
        }),
      );
    }
  }

  /** Emissions over every subscription so far. */
  emissions(): number {
    let n = 0;
    for (const s of this.seen) n += s.emissions;
    return n;
  }

  /** Subscriptions with a status (state and account replicas) that are not live. */
  notLiveYet(): Seen[] {
    return this.seen.filter((s) => s.plan.kind !== 'raw' && s.plan.channel !== 'trades' && s.plan.channel !== 'fills' && s.plan.channel !== 'fundingRates' && s.status !== 'live');
  }

  close(): void {
    for (const s of this.subs.splice(0)) s.unsubscribe();
  }

  private onNext(s: Seen, e: Record<string, unknown>): void {
    s.emissions++;
    if (s.plan.kind === 'raw') return;
    if (e.kind === 'gap') {
      s.gaps++;
      return;
    }
    if (typeof e.status === 'string') {
      s.status = e.status;
      s.state = e.state;
      if (typeof e.seq === 'bigint') s.seq = e.seq;
      if (this.strict && e.status !== 'live') s.notLive++;
    }
  }
}
