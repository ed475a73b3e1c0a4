/** How the fault injector reaches the simulator's REST server. @internal */
import type { OperationName } from '../protocol';

/** Decision of the fault injector for one REST request. */
export interface RestFaultDecision {
  /** Answer 500 INTERNAL_ERROR instead of serving. */
  readonly fail500?: boolean;
  /** Delay the answer by this many milliseconds. */
  readonly delayMs?: number;
}

/** Hook the REST server consults before serving each request. */
export interface RestFaultHook {
  beforeRequest(operation: OperationName): RestFaultDecision;
}
