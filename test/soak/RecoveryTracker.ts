/**
 * Time from each fault to all-live. The tracker records the episodes during which some
 * replica was not live; each fault is attributed to the episode in progress when it was
 * injected, or else to the first one that began within its effect window. Its recovery time
 * runs from the injection to that episode's end; a fault followed by no episode had no
 * visible effect and counts as 0.
 */

export interface FaultRecord {
  readonly atMs: number;
  readonly kind: string;
  /** How long the fault lasts (stalls, delays), 0 for instantaneous ones. */
  readonly durationMs: number;
}

interface Episode {
  readonly start: number;
  end: number | undefined;
}

/** Extra time after a fault's own duration within which an episode that begins is its effect. */
const EFFECT_GRACE_MS = 3000;

export class RecoveryTracker {
  private readonly episodes: Episode[] = [];
  readonly faults: FaultRecord[] = [];
  private live = false;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Call whenever the all-live verdict may have changed. */
  observe(allLive: boolean): void {
    if (allLive === this.live) return;
    this.live = allLive;
    const t = this.now();
    if (!allLive) this.episodes.push({ start: t, end: undefined });
    else {
      const open = this.episodes[this.episodes.length - 1];
      if (open && open.end === undefined) open.end = t;
    }
  }

  fault(kind: string, durationMs = 0): void {
    this.faults.push({ atMs: this.now(), kind, durationMs });
  }

  /** Number of episodes (some replica not live) so far. */
  get episodeCount(): number {
    return this.episodes.length;
  }

  /** Recovery time of each fault (ms); undefined for one whose episode has not ended. */
  recoveries(): { kind: string; ms: number | undefined; visible: boolean }[] {
    return this.faults.map((f) => {
      const window = f.atMs + f.durationMs + EFFECT_GRACE_MS;
      const ep = this.episodes.find((e) => e.start <= f.atMs && (e.end === undefined || e.end >= f.atMs)) ?? this.episodes.find((e) => e.start >= f.atMs && e.start <= window);
      if (!ep) return { kind: f.kind, ms: 0, visible: false };
      return { kind: f.kind, ms: ep.end === undefined ? undefined : ep.end - f.atMs, visible: true };
    });
  }
}

/** The p-th percentile (0..100) of `values` (nearest rank); undefined when empty. */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}
