import type { ExchangeReplicaError } from '../errors';
import type { DriftReport } from '../protocol';

/** Events of `client.events`. */
export interface ClientEvents {
  /** Unexpected keys were dropped from a server answer (non-strict mode). */
  drift: (report: DriftReport & { source: 'rest' | 'feed'; channel?: string; operation?: string }) => void;
  /** Any error the client survived (frame errors, snapshot failures, subscriber exceptions). */
  error: (error: ExchangeReplicaError) => void;
}
