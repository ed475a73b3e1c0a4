/**
 * `watch` before its replica's first state: every failed attempt to reach the exchange is said
 * (why nothing is printed yet), and the watch gives up after as many attempts as `view`
 * makes before it does: `view` fails when its first REST call (the market list) fails after
 * the REST retry policy's attempts (`DEFAULT_RETRY_POLICY`: 4); `watch` fails after as many
 * consecutive failed attempts to open the feed, or when the replica's snapshot fails after
 * its own attempts (the resync retry policy: the same 4). Once the replica has been live (an
 * event channel: its first item), failures are warnings and the client heals as it always
 * does. @internal
 */
import { ExchangeReplicaError, type ErrorCode } from '../../errors';
import { DEFAULT_RESYNC_RETRY } from '../../replicas/ResyncScheduler';
import { DEFAULT_RETRY_POLICY, isRetryableError } from '../../rest/retryPolicy';

/** The attempts `view` makes before it gives up: the first REST call and its retries. */
export const START_ATTEMPTS = DEFAULT_RETRY_POLICY.retries + 1;

/** The attempts of a replica's snapshot before it is reported (then fetched again later): the resync retry policy's. */
const SNAPSHOT_ATTEMPTS = DEFAULT_RESYNC_RETRY.retries + 1;

/** A failed attempt to open the feed (each attempt is reported once, then retried with backoff). */
const CONNECT_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['ERR_CONNECTION_FAILED', 'ERR_HANDSHAKE_FAILED']);

/** What to do with an error of the client: print it as a warning (with a note), or end the watch with `giveUp`. */
export type StartVerdict = { readonly kind: 'warn'; readonly note: string } | { readonly kind: 'giveUp'; readonly error: ExchangeReplicaError };

export class StartBound {
  private started = false;
  private failedConnects = 0;

  constructor(private readonly attempts: number = START_ATTEMPTS) {}

  /** The replica was live (or an event channel delivered an item): the bound no longer applies. */
  markStarted(): void {
    this.started = true;
  }

  /** The feed connection opened: failed attempts are counted again from zero. */
  connected(): void {
    this.failedConnects = 0;
  }

  /** An error the client reported (`errors$`). */
  judge(e: ExchangeReplicaError): StartVerdict {
    if (this.started) return { kind: 'warn', note: '' };
    if (CONNECT_CODES.has(e.code)) {
      this.failedConnects += 1;
      if (this.failedConnects >= this.attempts) return { kind: 'giveUp', error: gaveUp(e, `the feed could not be opened in ${this.attempts} attempts`) };
      return { kind: 'warn', note: ` (no replica until the feed opens: attempt ${this.failedConnects} of ${this.attempts} failed, retrying)` };
    }
    // A snapshot that failed after its retries (fetched again later, and again): a network
    // failure, a timeout, a 5xx. A 4xx fails the replica itself, which ends the watch.
    if (isRetryableError(e)) return { kind: 'giveUp', error: gaveUp(e, `the replica's first snapshot failed after ${SNAPSHOT_ATTEMPTS} attempts`) };
    return { kind: 'warn', note: '' };
  }
}

/** The error to end with: the last attempt's code and message, and why the watch stops. */
function gaveUp(e: ExchangeReplicaError, why: string): ExchangeReplicaError {
  return new ExchangeReplicaError(e.code, `${e.message} (${why}: giving up)`, e.context, { cause: e });
}
