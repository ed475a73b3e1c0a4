/**
 * Builds replicas of any channel from the pieces they run on: their source (stream and
 * snapshots) and the shared resync scheduler.
 */
import { InvalidParameterError } from '../errors';
import { streamKey, validateScope, type ChannelName, type Scope } from '../protocol';
import { eventReducer, stateReducer, type EventChannel, type EventChannelRecords, type StateChannel, type StateChannelStates } from './channelReducers';
import type { EventReducerOptions } from './eventReducer';
import { EventReplica, type EventReplicaOptions } from './EventReplica';
import type { Reducer } from './Reducer';
import type { CandleReducerOptions } from './reducers';
import type { ReplicaSource } from './ReplicaSource';
import type { ResyncScheduler } from './ResyncScheduler';
import type { SharedReplicas } from './SharedReplicas';
import { StreamSync, type StreamSyncOptions, type UpdateTimer } from './StreamSync';

/** What every replica runs on. */
export interface ReplicaDeps {
  /** Where streams and snapshots come from (e.g. the exchange: router + REST). */
  readonly source: ReplicaSource;
  /** Shared by every replica of a client, so that snapshot fetches are bounded together. */
  readonly scheduler: ResyncScheduler;
  /** The timer each replica records its updates' times in, by stream key (looked up once per replica). @default none */
  readonly timerOf?: (streamKey: string) => UpdateTimer;
  /** Where a replica made of others (the account replica) leases its parts; without it, it runs its own. */
  readonly shared?: SharedReplicas;
}

export type StateReplicaOptions = StreamSyncOptions & CandleReducerOptions;
export type EventReplicaFullOptions = StreamSyncOptions & EventReducerOptions & EventReplicaOptions;

/**
 * Checks a scope against a channel.
 * @throws InvalidParameterError naming the offending scope key.
 */
export function checkScope(channel: ChannelName, scope: Scope): Scope {
  const result = validateScope(channel, scope as Record<string, unknown>);
  if (!result.ok) {
    throw new InvalidParameterError(result.message, { param: result.key, channel });
  }
  return result.scope;
}

/**
 * A replica of any channel driven by the given reducer.
 * Not started: call `start()`.
 * @throws InvalidParameterError for an invalid scope or option.
 */
export function createReplicaWith<S>(channel: ChannelName, scope: Scope, reducer: Reducer<S>, deps: ReplicaDeps, options: StreamSyncOptions = {}): StreamSync<S> {
  const checked = checkScope(channel, scope);
  const timer = deps.timerOf?.(streamKey(channel, checked));
  return new StreamSync<S>({ channel, scope: checked, reducer, source: deps.source, scheduler: deps.scheduler, timer }, options);
}

/**
 * A replica of a state channel (book, bbo, marketStats, candles, markCandles, account,
 * balances, positions, orders). Not started: call `start()`.
 * @example
 * const book = createStateReplica('book', { market_id: 0, is_perps: true }, deps).start();
 * @throws InvalidParameterError for an invalid scope or option.
 */
export function createStateReplica<C extends StateChannel>(channel: C, scope: Scope, deps: ReplicaDeps, options: StateReplicaOptions = {}): StreamSync<StateChannelStates[C]> {
  return createReplicaWith(channel, scope, stateReducer(channel, options), deps, options);
}

/**
 * A replica of an event channel (trades, fills, fundingRates). Not started: call `start()`.
 * @example
 * const fills = createEventReplica('fills', { address, subaccount_id: 0 }, deps).start();
 * @throws InvalidParameterError for an invalid scope or option.
 */
export function createEventReplica<C extends EventChannel>(channel: C, scope: Scope, deps: ReplicaDeps, options: EventReplicaFullOptions = {}): EventReplica<EventChannelRecords[C]> {
  const sync = createReplicaWith(channel, scope, eventReducer(channel, options), deps, options);
  return new EventReplica(sync, options);
}
