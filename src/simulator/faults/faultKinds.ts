import { recordOf } from '../../util/recordOf';

/** The kinds of faults the injector counts and the random schedule draws from. */
export const FAULT_KINDS = ['dropConnection', 'dropAll', 'resyncStream', 'skipSilently', 'stallStream', 'stallConnection', 'delayFrames', 'rest500', 'restLatency'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Counts of injected faults. */
export interface FaultStats {
  /** Faults injected, every kind together. */
  total: number;
  /** Faults that found no target (no open connection, no subscribed stream) and did nothing. */
  skipped: number;
  byKind: Record<FaultKind, number>;
}

export function emptyFaultStats(): FaultStats {
  return { total: 0, skipped: 0, byKind: recordOf(FAULT_KINDS, () => 0) };
}

const KIND_NAMES: readonly string[] = FAULT_KINDS;

export function isFaultKind(s: string): s is FaultKind {
  return KIND_NAMES.includes(s);
}
