/**
 * Drift reports arrive once per record (every row of a list may carry the same new key);
 * callers want to hear about each new key once. This keeps what was already reported.
 * @internal
 */
import type { DriftReport } from '../protocol';

/** A server answer carried keys the protocol does not list; they were dropped. */
export interface DriftEvent {
  /** The operation whose answer drifted. */
  readonly operation: string;
  /** Where in the answer, with array indices folded: `data[].bids[]`. */
  readonly path: string;
  /** The keys seen for the first time at this place. */
  readonly keys: readonly string[];
}

export class DriftDeduper {
  private readonly seen = new Set<string>();

  /** Returns the event to publish, or undefined when every key was already reported. */
  filter(operation: string, report: DriftReport): DriftEvent | undefined {
    const path = report.path.replace(/\[\d+\]/g, '[]');
    const fresh: string[] = [];
    for (const key of report.keys) {
      const id = `${operation}\u0000${path}\u0000${key}`;
      if (this.seen.has(id)) continue;
      this.seen.add(id);
      fresh.push(key);
    }
    return fresh.length ? { operation, path, keys: fresh } : undefined;
  }
}
