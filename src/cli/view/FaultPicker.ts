/**
 * The `f` key of the live view: one seeded random fault injected into the embedded
 * simulator, chosen among those whose healing can be watched (a book resync, a reconnect,
 * a stall, delayed frames). @internal
 */
import { streamKey, type Market } from '../../protocol';
import { CliUsageError } from '../CliUsageError';
import type { FaultInjector } from '../../simulator/faults/FaultInjector';
import { Prng } from '../../simulator/engine/Prng';

/** What was injected, for the screen. */
export interface InjectedFault {
  readonly kind: string;
  readonly description: string;
  readonly atMs: number;
}

type Fault = (target: { key: string; symbol: string }) => string;

/** How long a stall or delay lasts: long enough to see, short enough to watch it heal. */
const STALL_MS = 3000;
const DELAY_MS = 250;

export class FaultPicker {
  private readonly prng: Prng;
  private readonly faults: Readonly<Record<string, Fault>>;

  constructor(
    f: FaultInjector,
    private readonly markets: readonly Market[],
    seed: number,
  ) {
    this.prng = Prng.xorSeeded(seed);
    this.faults = {
      resyncStream: ({ key, symbol }) => (f.resyncStream(key, 3), `${symbol} book: 3 updates skipped, resync_required sent`),
      skipSilently: ({ key, symbol }) => (f.skipSilently(key, 2), `${symbol} book: 2 updates skipped silently (seq jump)`),
      stallStream: ({ key, symbol }) => (f.stallStream(key, STALL_MS), `${symbol} book: stream stalled ${STALL_MS} ms`),
      dropAll: () => `feed sockets dropped: ${f.dropAll()}`,
      stallConnection: () => (f.stallConnection(STALL_MS), `every feed connection stalled ${STALL_MS} ms`),
      delayFrames: () => (f.delayFramesFor(DELAY_MS, STALL_MS), `feed frames delayed ${DELAY_MS} ms for ${STALL_MS} ms`),
    };
  }

  /** The kinds it draws from. */
  get kinds(): string[] {
    return Object.keys(this.faults);
  }

  /**
   * Injects one fault, drawn with the seeded PRNG (or the given kind).
   * @throws CliUsageError for an unknown kind.
   */
  inject(kind?: string): InjectedFault {
    const kinds = this.kinds;
    const k = kind ?? kinds[this.prng.int(0, kinds.length - 1)]!;
    const fault = this.faults[k];
    if (!fault) throw new CliUsageError(`unknown fault kind ${k}: expected one of ${kinds.join(', ')}`);
    const m = this.markets[this.prng.int(0, this.markets.length - 1)]!;
    const key = streamKey('book', { market_id: m.market_id, is_perps: m.market_type === 'perp' });
    return { kind: k, description: fault({ key, symbol: m.symbol }), atMs: Date.now() };
  }
}
