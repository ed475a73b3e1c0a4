/**
 * What a relay sets up on NATS before it carries anything, and checks again after a
 * reconnect: the JetStream API, the updates stream (created when missing, with the bus's
 * subjects and a duplicate window), the snapshot bucket, and the markets metadata.
 */
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { ExchangeClient } from '../client';
import { ExchangeReplicaError } from '../errors';
import { permissionError } from './natsAuth';
import type { NatsModules } from './natsModules';
import type { ResolvedRelayOptions } from './relayOptions';
import { BUS_FORMAT_VERSION, encodeMarketsMeta, MARKETS_META_KEY, SNAPSHOT_HISTORY, updateStreamConfig, type MarketsMeta } from './wire';

/** JetStream's code for a stream name already taken (two relays creating it at once). */
const STREAM_NAME_IN_USE = 10058;
const STREAM_NOT_FOUND = 10059;

/** The JetStream manager. @throws ExchangeReplicaError `ERR_BUS_PERMISSION`, or `ERR_BUS` when the server has no JetStream. */
export async function jetstreamManager(mods: NatsModules, nats: NatsConnection): Promise<JetStreamManager> {
  try {
    return await mods.jetstream.jetstreamManager(nats);
  } catch (cause) {
    throw permissionError(cause, 'the JetStream API ($JS.API.INFO)') ?? new ExchangeReplicaError('ERR_BUS', `JetStream is not available on the NATS server (start nats-server with -js): ${(cause as Error)?.message ?? String(cause)}`, {}, { cause });
  }
}

/**
 * Creates the updates stream when it is missing; an existing one must take the bus's subjects
 * and deduplicate. Resolves to the stream's creation time (which tells a recreated stream).
 */
export async function ensureStream(mods: NatsModules, jsm: JetStreamManager, o: ResolvedRelayOptions): Promise<string> {
  const { names } = o;
  const wire = updateStreamConfig(names, o.streamLimits);
  const { RetentionPolicy, DiscardPolicy, StorageType } = mods.jetstream;
  const config = { ...wire, subjects: [...wire.subjects], retention: RetentionPolicy.Limits, discard: DiscardPolicy.Old, storage: wire.storage === 'memory' ? StorageType.Memory : StorageType.File };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const info = await jsm.streams.info(names.stream);
      if (!info.config.subjects?.includes(names.updateSubjects)) {
        throw new ExchangeReplicaError('ERR_BUS', `JetStream stream ${names.stream} exists without subjects ${names.updateSubjects} (it has ${JSON.stringify(info.config.subjects ?? [])})`);
      }
      if (!(info.config.duplicate_window > 0)) throw new ExchangeReplicaError('ERR_BUS', `JetStream stream ${names.stream} has no duplicate window: relays would store an update twice`);
      return info.created;
    } catch (error) {
      if (apiCode(error) !== STREAM_NOT_FOUND) throw error;
    }
    try {
      return (await jsm.streams.add(config)).created;
    } catch (error) {
      if (apiCode(error) !== STREAM_NAME_IN_USE) throw new ExchangeReplicaError('ERR_BUS', `creating JetStream stream ${names.stream} failed: ${(error as Error)?.message ?? String(error)}`, {}, { cause: error });
    }
  }
  throw new ExchangeReplicaError('ERR_BUS', `JetStream stream ${names.stream} was neither found nor created in 3 tries (created and deleted meanwhile by others?)`);
}

/** Opens the snapshot bucket, creating it when it is missing. */
export async function ensureBucket(mods: NatsModules, js: JetStreamClient, o: ResolvedRelayOptions): Promise<KV> {
  const kvm = new mods.kv.Kvm(js);
  try {
    return await kvm.create(o.names.bucket, { history: SNAPSHOT_HISTORY, storage: o.streamLimits.storage === 'memory' ? mods.jetstream.StorageType.Memory : mods.jetstream.StorageType.File, replicas: o.streamLimits.replicas });
  } catch (cause) {
    // Created by someone else with other settings: use it as it is.
    try {
      return await kvm.open(o.names.bucket);
    } catch {
      throw new ExchangeReplicaError('ERR_BUS', `opening KV bucket ${o.names.bucket} failed: ${(cause as Error)?.message ?? String(cause)}`, {}, { cause });
    }
  }
}

/** The exchange's markets (and tokens when served) under MARKETS_META_KEY, for consumers without REST (`view --nats`). */
export async function writeMarketsMeta(client: ExchangeClient, kv: KV, relayId: string): Promise<void> {
  const markets = (await client.rest.markets({ market_type: 'all' })).data;
  const tokens = await client.rest.tokens().then(
    (r) => r.data,
    () => null,
  );
  const meta: MarketsMeta = { v: BUS_FORMAT_VERSION, markets, tokens, relayId };
  await kv.put(MARKETS_META_KEY, encodeMarketsMeta(meta));
}

function apiCode(error: unknown): number | undefined {
  const e = error as { code?: unknown; api_error?: { err_code?: unknown } } | null;
  if (typeof e?.api_error?.err_code === 'number') return e.api_error.err_code;
  return typeof e?.code === 'number' ? e.code : undefined;
}
