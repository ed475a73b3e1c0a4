/**
 * The one NATS connection setup of the bus, shared by the relay (`ReplicaRelay`) and the
 * consumer (`BusSource`): the servers, the credentials and TLS of `natsAuth`, reconnecting
 * forever, a failure to connect as a coded error, and NATS's later refusals (a status
 * `error`) as the bus's error codes.
 */
import type { ConnectionOptions, NatsConnection } from '@nats-io/transport-node';
import { Backoff, sleep, type Clock } from '../clock';
import { ExchangeReplicaError } from '../errors';
import { messageOf } from '../errors/messageOf';
import { connectError, hasCredentials, isAuthRefusal, isTlsRefusal, natsAuthOptions, permissionError, permissionRefusal, type NatsAuth } from './natsAuth';
import type { NatsModules } from './natsModules';

/** What to connect to, and how. */
export interface NatsDial {
  /** The servers' URLs, checked (`checkNatsUrls`: none carries credentials). */
  readonly servers: readonly string[];
  readonly auth: NatsAuth | undefined;
  /** The connection options given (`natsOptions`); `maxReconnectAttempts` defaults to -1 (forever). */
  readonly options: Partial<ConnectionOptions> | undefined;
  /**
   * Keep trying a server that cannot be reached yet, with a backoff of up to 2 s, while
   * `options.waitOnFirstConnect` is true (nats.js's own `waitOnFirstConnect` would also retry
   * a server that refused the sign-in or the TLS handshake, forever): a refusal fails at
   * once, as does a dial `stopped()` (its owner closed). Without it, one attempt (with the
   * options as given).
   */
  readonly retry?: {
    readonly clock: Clock;
    readonly stopped: () => boolean;
    /** The first failure of a server that cannot be reached yet (the dial goes on). */
    readonly onFirstFailure: (error: ExchangeReplicaError) => void;
  };
}

/**
 * Connects to NATS.
 * @throws ExchangeReplicaError `ERR_BUS_AUTH` when the server refused the sign-in, `ERR_BUS`
 *   when it cannot be reached (or the TLS handshake failed); InvalidParameterError for a
 *   `natsAuth` file that cannot be read or a seed that is not one
 */
export async function connectNats(mods: NatsModules, dial: NatsDial): Promise<NatsConnection> {
  const servers = [...dial.servers];
  const options = { maxReconnectAttempts: -1, ...dial.options, ...natsAuthOptions(mods, dial.auth, servers), servers };
  const credentials = hasCredentials(dial.auth, dial.options);
  const retry = dial.retry;
  if (retry === undefined) {
    try {
      return await mods.transport.connect(options);
    } catch (cause) {
      throw connectError(cause, servers, credentials);
    }
  }
  const backoff = new Backoff({ initialDelayMs: 100, maxDelayMs: 2000, factor: 2, jitter: 0.2, retries: Number.POSITIVE_INFINITY });
  for (;;) {
    try {
      return await mods.transport.connect({ ...options, waitOnFirstConnect: false });
    } catch (cause) {
      if (isAuthRefusal(cause) || isTlsRefusal(cause) || !options.waitOnFirstConnect || retry.stopped()) throw connectError(cause, servers, credentials);
      if (backoff.attempts === 0) retry.onFirstFailure(connectError(cause, servers, credentials));
      await sleep(backoff.next() ?? 2000, undefined, retry.clock);
    }
  }
}

/** A refusal of the server read from the connection's status. */
export interface NatsRefusal {
  readonly error: ExchangeReplicaError;
  /** False for a permission refusal of a subject already reported (since the last {@link NatsRefusals.clear}). */
  readonly report: boolean;
  /** The subject of a refused publish (its publishes awaiting an answer will get none). */
  readonly publishSubject?: string;
}

/**
 * NATS's refusals, read from the connection's status errors: a permission refusal
 * (`ERR_BUS_PERMISSION`, reported once per subject) or a refused sign-in (`ERR_BUS_AUTH`,
 * e.g. credentials that expired); anything else is not one.
 */
export class NatsRefusals {
  private readonly subjects = new Set<string>();

  constructor(
    private readonly servers: readonly string[],
    private readonly credentials: boolean,
  ) {}

  read(error: Error): NatsRefusal | undefined {
    const refusal = permissionRefusal(error) as (Error & { operation?: unknown; subject?: unknown }) | undefined;
    if (refusal !== undefined) {
      const subject = typeof refusal.subject === 'string' ? refusal.subject : '';
      const subscription = refusal.operation === 'subscription';
      const what = subscription ? `a subscription to ${subject}` : subject === '' ? 'an operation on the bus' : `a publish to ${subject}`;
      const coded = permissionError(error, what)!;
      const report = !this.subjects.has(subject);
      this.subjects.add(subject);
      return { error: coded, report, ...(!subscription && subject !== '' ? { publishSubject: subject } : {}) };
    }
    if (isAuthRefusal(error)) return { error: connectError(error, this.servers, this.credentials), report: true };
    return undefined;
  }

  /** Reports every refused subject again (after a reconnect: the permissions may have changed). */
  clear(): void {
    this.subjects.clear();
  }
}

/** What a JavaScript engine throws for a bug (not a NATS client's failure). */
const BUG_NAMES: ReadonlySet<string> = new Set(['TypeError', 'RangeError', 'ReferenceError', 'SyntaxError', 'EvalError', 'URIError']);

/**
 * A failure met on the bus as the library's error: an `ExchangeReplicaError` as it is; NATS's
 * refusal of an operation to these credentials `ERR_BUS_PERMISSION`; a JavaScript engine's
 * error (a bug) `ERR_INTERNAL`; anything else (the NATS client's failures: a timeout, a
 * closed connection, a JetStream API error) `ERR_BUS`, `what` naming what was attempted.
 * Each keeps the failure as its `cause`.
 */
export function natsFailure(error: unknown, what: string): ExchangeReplicaError {
  if (error instanceof ExchangeReplicaError) return error;
  const refused = permissionError(error, what);
  if (refused !== undefined) return refused;
  const name = (error as { name?: unknown } | null)?.name;
  const code = typeof name === 'string' && BUG_NAMES.has(name) ? 'ERR_INTERNAL' : 'ERR_BUS';
  return new ExchangeReplicaError(code, `${what} failed: ${messageOf(error)}`, {}, { cause: error });
}
