/**
 * exchange-replica: live, exact replicas of an exchange's state (order books, BBO, trades,
 * stats, candles, funding, accounts) over REST + WebSocket.
 *
 * The public surface is this explicit list. Everything else under `src/` is internal.
 * The local exchange simulator is a separate entry point: `exchange-replica/simulator`;
 * recording and replay (Node: files, gzip) another: `exchange-replica/record`. This entry
 * imports no Node module: it bundles for the browser.
 */

// The client
export { ExchangeClient, feedUrlFor, whenLive, iterate, type WhenLiveOptions, type IterateOptions, type ClientEvents, type ExchangeClientOptions, type MarketParams, type CandleParams, type PerpCandleParams, type PerpMarketParams, type AccountParams, type StreamMetricsSnapshot, type ArbitrationOptions, type LineStats } from './client';

// REST
export { RestClient, paginate, waitForTransaction, withRetry, DEFAULT_RETRY_POLICY, isRetryableError, type RestClientOptions, type RetryPolicy, type RequestOptions, type OperationParams, type OperationResponse, type PaginateOptions, type WaitForTransactionOptions, type FetchLike, type DriftEvent } from './rest';

// Time and retries: one clock and one backoff shape, injectable everywhere
export { SystemClock, systemClock, Backoff, resolveBackoffOptions, type Clock, type Timer, type TimerOptions, type BackoffOptions, type ResolvedBackoffOptions } from './clock';

// Feed connection and router (usable on their own)
export { Connection, IllegalStateTransitionError, type ConnectionOptions, type ConnectionStateName, type StateChange, type ReconnectPolicyOptions, type WebSocketConstructor, type WsWebSocketConstructor, type StandardWebSocketConstructor, type WebSocketLike, type StandardWebSocketLike, type WebSocketClientOptions, type RawSocketData } from './connection';
export { SubscriptionRouter, type RouterOptions, type RouterEvent, type UpdateEvent, type FrameDecoder } from './router';

// Replicas
export {
  OrderBook,
  BookDecimals,
  type DecimalLevel,
  ReplicaIntegrityError,
  SnapshotError,
  SnapshotBehindError,
  SnapshotAheadError,
  BookPrecisionError,
  InvalidTransitionError,
  REPLICA_STATUSES,
  STATUS_CODES,
  RESYNC_TRIGGERS,
  DEFAULT_LIVENESS_MS,
  type ReplicaState,
  type ReplicaStatus,
  type ReplicaTransitionCode,
  type ReplicaSource,
  type SourceEvent,
  type StatusChange,
  type EmissionCause,
  type ResyncTrigger,
  type StreamSyncOptions,
  type ResyncSchedulerOptions,
  type EventItem,
  type EventRecord,
  type EventLog,
  type GapMarker,
  type AccountState,
  type AccountChange,
  type AccountReplicaState,
  type OrderBookOptions,
  type BookLevels,
  type BookSideReader,
  type BookTopView,
  type LevelCallback,
  type BigLevelCallback,
} from './replicas';

// What a recorder wraps (`exchange-replica/record` has the recorder and the replayer)
export type { ClientIoInterceptor, ClientIoSession, ReducerOverrides } from './client/ClientIo';
export type { Reducer } from './replicas';

// Exact units
export { ticksToPrice, priceToTicks, baseLotsToSize, sizeToBaseLots, quoteLotsToQuoteAmount, quoteAmountToQuoteLots, atomsToAmount, amountToAtoms, type RoundingMode, type MarketScales } from './units';

// Metrics
export { LatencyTracker, METER_NAME, METRIC_INSTRUMENTS, type LatencyPercentiles, type MeterProviderLike, type InstrumentSpec } from './metrics';

// Errors
export {
  ExchangeReplicaError,
  InvalidParameterError,
  RestApiError,
  RestTransportError,
  RestTimeoutError,
  AbortedError,
  ResponseValidationError,
  TransactionNotIndexedError,
  FeedError,
  FrameError,
  RequestTimeoutError,
  ClientClosedError,
  ConnectionFailedError,
  SubscriberError,
  ResponseTooLargeError,
  FrameTooLargeError,
  TooManyFragmentsError,
  WriteBacklogError,
  HandshakeFailedError,
  CursorRepeatedError,
  ConsumerOverflowError,
  BufferOverflowError,
  type ErrorContext,
} from './errors';
export { ERROR_CODES, LIBRARY_ERROR_CODES, isErrorCode, type ErrorCode, type LibraryErrorCode, type ExchangeErrorCode } from './errors/ErrorCode';

// The protocol: every wire detail (schemas, tables, frames). Swap these for the real exchange's.
export * as protocol from './protocol';
export type {
  Market,
  MarketStats,
  PriceLevel,
  Bbo,
  Trade,
  FundingRate,
  LastCandle,
  MarkCandle,
  Subaccount,
  Balance,
  Position,
  Order,
  Fill,
  Transaction,
  MarketType,
  Resolution,
  Side,
  ChannelName,
  OperationName,
  Scope,
} from './protocol';
