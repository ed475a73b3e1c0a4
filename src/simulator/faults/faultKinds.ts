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
  return { total: 0, skipped: 0, byKind: Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number> };
}

export function isFaultKind(s: string): s is FaultKind {
  return (FAULT_KINDS as readonly string[]).includes(s);
}
