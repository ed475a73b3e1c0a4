/**
 * Types of the REST client, derived from the operations table: the parameter object and
 * the answer of each operation. Nothing here is written per operation.
 */
import type { OperationData, OperationName, Operations, ParamsOf } from '../protocol';
import type { RetryPolicy } from './retryPolicy';

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type Op<N extends OperationName> = Operations[N];

/** The parameter object of operation `N`, names exactly as documented. */
export type OperationParams<N extends OperationName> = Simplify<ParamsOf<Op<N>['params']>>;

/** Operations that take `cursor` and answer `next_cursor`. */
export type PagedOperationName = { [N in OperationName]: 'cursor' extends keyof Op<N>['params'] ? N : never }[OperationName];

/** Operations answering with the versioned envelope. */
export type VersionedOperationName = { [N in OperationName]: Op<N>['versioned'] extends true ? N : never }[OperationName];

/**
 * The envelope of a versioned answer: `data`, the server's `timestamp_ns`, `next_cursor`
 * on paged operations (null on the last page) and `sequence` (the channel stream's seq the
 * snapshot includes, a Uint64 string) on channel-snapshot operations.
 */
export type VersionedResponse<N extends OperationName> = Simplify<
  { data: OperationData<N>; timestamp_ns: string } & ('cursor' extends keyof Op<N>['params'] ? { next_cursor: string | null } : unknown) &
    ([NonNullable<Op<N>['snapshotOf']>] extends [never] ? unknown : { sequence: string })
>;

/**
 * What operation `N` resolves to: the envelope when versioned, else the bare record. For a
 * union of names (an operation named at run time), the union of their answers.
 */
export type OperationResponse<N extends OperationName> = N extends OperationName ? (Op<N>['versioned'] extends true ? VersionedResponse<N> : OperationData<N>) : never;

/** Per-call options of every operation. */
export interface RequestOptions {
  /** Aborts the call (and its retries); the call rejects with `AbortedError`. */
  readonly signal?: AbortSignal;
  /** Per-attempt timeout in milliseconds. @default the client's `timeoutMs` */
  readonly timeoutMs?: number;
  /** Overrides fields of the client's retry policy for this call. @default the client's `retry` */
  readonly retry?: Partial<RetryPolicy>;
}

/** Parameters are optional exactly when the operation has no required parameter. */
export type OperationArgs<N extends OperationName> = {} extends OperationParams<N>
  ? [params?: OperationParams<N>, options?: RequestOptions]
  : [params: OperationParams<N>, options?: RequestOptions];

/** One typed method per operation, e.g. `orderBook(params, options)`. */
export type OperationMethods = { readonly [N in OperationName]: (...args: OperationArgs<N>) => Promise<OperationResponse<N>> };
