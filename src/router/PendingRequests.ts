/**
 * Requests in flight, matched to their answers by `request_id`, each with a deadline. The
 * context of a request is the caller's (what to do with the answer); this class only
 * correlates and times out.
 */
import { systemClock, type Clock, type Timer } from '../clock/Clock';
import { ExchangeReplicaError } from '../errors';

export class PendingRequests<C> {
  private readonly pending = new Map<string, { readonly context: C; readonly timer: Timer }>();

  /**
   * @param timeoutMs time an answer may take.
   * @param onTimeout called once for a request that got no answer in time (it is already forgotten).
   * @param clock time source of the deadlines.
   */
  constructor(
    private readonly timeoutMs: number,
    private readonly onTimeout: (requestId: string, context: C) => void,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Number of requests awaiting an answer. */
  get size(): number {
    return this.pending.size;
  }

  /**
   * Starts waiting for the answer to `requestId`.
   * @throws ExchangeReplicaError (`ERR_INTERNAL`) when the id is already pending (ids must be unique: a bug of the caller).
   */
  add(requestId: string, context: C): void {
    if (this.pending.has(requestId)) throw new ExchangeReplicaError('ERR_INTERNAL', `request id ${requestId} is already pending`);
    const timer = this.clock.setTimer(() => {
      this.pending.delete(requestId);
      this.onTimeout(requestId, context);
    }, this.timeoutMs);
    this.pending.set(requestId, { context, timer });
  }

  /** The answer arrived: returns the request's context and forgets it, or undefined for an unknown id. */
  take(requestId: string): C | undefined {
    const p = this.pending.get(requestId);
    if (p === undefined) return undefined;
    p.timer.cancel();
    this.pending.delete(requestId);
    return p.context;
  }

  /** Forgets every request without calling back (their socket is gone, answers will never come). */
  clear(): void {
    for (const p of this.pending.values()) p.timer.cancel();
    this.pending.clear();
  }
}
