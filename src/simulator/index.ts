/**
 * `exchange-replica/simulator`: the local exchange (matching engine, REST API, WebSocket
 * feed) and its fault injection, for tests, examples and soak runs.
 */
export { Simulator } from './Simulator';
export { resolveSimulatorOptions, type SimulatorOptions, type ResolvedSimulatorOptions } from './simulatorOptions';
export { SimulatorOptionError } from './SimulatorOptionError';

export { FaultInjector } from './faults/FaultInjector';
export { RestFaults } from './faults/RestFaults';
export { RandomFaultSchedule, planRandomFaults, type RandomFaultOptions, type PlannedFault, type AppliedFault } from './faults/RandomFaultSchedule';
export { FAULT_KINDS, type FaultKind, type FaultStats } from './faults/faultKinds';

export { FeedServer, FEED_SERVER_DEFAULTS, type FeedServerOptions } from './feed/FeedServer';
export type { ConnectionInfo, SubscriptionInfo } from './feed/ConnectionInfo';

export { Engine, type EngineOptions, type QueryResult, type PlaceOrderRequest, type CancelOrderRequest } from './engine/Engine';
export { SimulatorRequestError } from './engine/SimulatorRequestError';
export { createRestHandler } from './rest/createRestHandler';
export { SimStreamHub } from './SimStreamHub';
export type { StreamHub, StreamEvent } from './StreamHub';
export type { ScopeChecker } from './ScopeChecker';
export type { RestFaultHook, RestFaultDecision } from './RestFaultHook';

/** The canonical key of a stream, as the fault methods take it: `streamKey('book', { market_id: 0, is_perps: true })`. */
export { streamKey } from '../protocol';
