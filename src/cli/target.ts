/**
 * What a command talks to: a real exchange (`--rest-url`, optional `--ws-url`) or an
 * embedded, seeded simulator started in this process. Either way one ExchangeClient, and
 * one `close()` that releases both. @internal
 */
import { ExchangeClient } from '../client';
import { Simulator } from '../simulator/Simulator';

/** Options of {@link openTarget}. */
export interface TargetOptions {
  /** REST base URL of a real exchange. @default undefined (then `simulator` must be true) */
  readonly restUrl?: string;
  /** Feed URL. @default derived from `restUrl` (path `/ws`) */
  readonly wsUrl?: string;
  /** Start an embedded simulator instead. @default false */
  readonly simulator?: boolean;
  /** Seed of the embedded simulator. @default 1 */
  readonly seed?: number;
  /** Order-flow events per second of the embedded simulator. @default 200 (the simulator's default) */
  readonly eventsPerSecond?: number;
}

/** An open client and, for the embedded case, its simulator. */
export interface Target {
  readonly client: ExchangeClient;
  /** The embedded simulator, when there is one. */
  readonly sim: Simulator | undefined;
  /** Where the data comes from, for headers and logs. */
  readonly label: string;
  /** Closes the client, then the simulator. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts the simulator when asked, then the client.
 * @throws ExchangeReplicaError when the simulator cannot start or an URL is invalid.
 */
export async function openTarget(options: TargetOptions): Promise<Target> {
  let sim: Simulator | undefined;
  let restUrl = options.restUrl;
  let wsUrl = options.wsUrl;
  if (options.simulator || restUrl === undefined) {
    sim = await Simulator.start({ seed: options.seed ?? 1, ...(options.eventsPerSecond !== undefined ? { eventsPerSecond: options.eventsPerSecond } : {}) });
    restUrl = sim.restUrl;
    wsUrl = sim.wsUrl;
  }
  let client: ExchangeClient;
  try {
    client = new ExchangeClient({ restUrl, ...(wsUrl !== undefined ? { wsUrl } : {}) });
  } catch (e) {
    await sim?.stop();
    throw e;
  }
  let closing: Promise<void> | undefined;
  return {
    client,
    sim,
    label: sim ? `simulator seed ${sim.options.seed} at ${sim.restUrl}` : restUrl,
    close: () =>
      (closing ??= (async () => {
        await client.close();
        await sim?.stop();
      })()),
  };
}
