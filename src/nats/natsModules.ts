/**
 * The NATS client packages, loaded when a relay starts and not before: they are optional
 * peer dependencies, so the core package, its CLI and `npm start` run without them. Types
 * are imported statically (erased from the output); values only through `loadNats()`.
 */
import { ExchangeReplicaError } from '../errors';

export type TransportModule = typeof import('@nats-io/transport-node');
export type JetStreamModule = typeof import('@nats-io/jetstream');
export type KvModule = typeof import('@nats-io/kv');

/** The three packages a relay uses. */
export interface NatsModules {
  readonly transport: TransportModule;
  readonly jetstream: JetStreamModule;
  readonly kv: KvModule;
}

/** The packages to install for `exchange-replica/nats`. */
export const NATS_PACKAGES = ['@nats-io/transport-node', '@nats-io/jetstream', '@nats-io/kv'] as const;

let loading: Promise<NatsModules> | undefined;

/**
 * Loads the NATS client packages (once per process).
 * @throws ExchangeReplicaError `ERR_BUS` naming the packages to install when one is missing.
 */
export function loadNats(): Promise<NatsModules> {
  loading ??= (async () => {
    try {
      const [transport, jetstream, kv] = await Promise.all([import('@nats-io/transport-node'), import('@nats-io/jetstream'), import('@nats-io/kv')]);
      return { transport, jetstream, kv };
    } catch (cause) {
      loading = undefined;
      throw new ExchangeReplicaError('ERR_BUS', `exchange-replica/nats needs the NATS client packages: npm install ${NATS_PACKAGES.map((p) => `${p}@3`).join(' ')} (${(cause as Error)?.message ?? String(cause)})`, {}, { cause });
    }
  })();
  return loading;
}
