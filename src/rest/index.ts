/** The REST side of the client: typed operations, retry policy, pagination, transaction wait. */
export { RestClient, resolveRestClientOptions, type RestClientOptions, type ResolvedRestClientOptions, type RestClientEvents, type RetryEvent } from './RestClient';
export type { DriftEvent } from './DriftDeduper';
export type { FetchLike } from './fetchText';
export type { OperationArgs, OperationMethods, OperationParams, OperationResponse, PagedOperationName, RequestOptions, VersionedOperationName, VersionedResponse } from './operationTypes';
export { DEFAULT_MAX_RETRY_AFTER_MS, DEFAULT_RETRY_POLICY, isRateLimitedError, isRetryableError, resolveRetryPolicy, retryAfterMsOf, withRetry, type RetryInfo, type RetryPolicy, type WithRetryHooks } from './retryPolicy';
export { paginate, type PaginateOptions } from './paginate';
export { waitForTransaction, type WaitForTransactionOptions } from './waitForTransaction';
