/**
 * The publishes an `OrderedPublisher` sent and awaits the answers of, in the order sent. Each
 * takes the next token (its reply subject is `<inbox>.<token>`); tokens in the window are
 * consecutive, so an answer finds its publish by index. Settled publishes leave from the head.
 */
import type { PublishJob } from './OrderedPublisher';

/** A publish awaiting its acknowledgement. */
export interface InFlight {
  readonly token: number;
  readonly job: PublishJob;
  readonly sentAtMs: number;
  settled: boolean;
}

export class InFlightWindow {
  /** Publishes sent, in token order; settled ones leave from the head. */
  private readonly flight: InFlight[] = [];
  private head = 0;
  /** Publishes sent and not settled. */
  outstanding = 0;
  private next = 1;

  /** The token the next publish added will have (its reply subject is built before it is sent). */
  get nextToken(): number {
    return this.next;
  }

  /**
   * A publish the client took: it gets {@link nextToken}. A token is taken only here, by a
   * publish the client wrote, so that the tokens in the window stay consecutive (a publish the
   * client refused used one up before: the answers to those after it were not found).
   */
  add(job: PublishJob, sentAtMs: number): void {
    this.flight.push({ token: this.next++, job, sentAtMs, settled: false });
    this.outstanding++;
  }

  /** The oldest publish not settled. */
  get oldest(): InFlight | undefined {
    return this.flight[this.head];
  }

  /** The outstanding publish with this token, if any (tokens of `flight` are consecutive). */
  entryOf(token: number): InFlight | undefined {
    const first = this.flight[this.head];
    if (first === undefined || !Number.isSafeInteger(token)) return undefined;
    const entry = this.flight[this.head + token - first.token];
    return entry !== undefined && entry.token === token && !entry.settled ? entry : undefined;
  }

  /** Marks a publish settled. */
  settle(entry: InFlight): void {
    entry.settled = true;
    this.outstanding--;
    while (this.head < this.flight.length && this.flight[this.head]!.settled) this.head++;
    if (this.head === this.flight.length) {
      this.flight.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.flight.length) {
      this.flight.splice(0, this.head);
      this.head = 0;
    }
  }

  /** The publishes not settled sent before token `end` that `test` accepts, oldest first. */
  unsettled(end: number, test: (entry: InFlight) => boolean): InFlight[] {
    const out: InFlight[] = [];
    for (let i = this.head; i < this.flight.length; i++) {
      const entry = this.flight[i]!;
      if (entry.token >= end) break;
      if (!entry.settled && test(entry)) out.push(entry);
    }
    return out;
  }

  /** Every publish not settled, oldest first, each marked settled: the window is empty after. */
  takeAll(): InFlight[] {
    const out: InFlight[] = [];
    for (let i = this.head; i < this.flight.length; i++) {
      const e = this.flight[i]!;
      if (e.settled) continue;
      e.settled = true;
      this.outstanding--;
      out.push(e);
    }
    this.flight.length = 0;
    this.head = 0;
    return out;
  }
}
