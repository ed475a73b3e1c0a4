/**
 * Trailing 24-hour trade statistics of one market, kept in one-minute buckets so adding a
 * trade is O(1) and expiring old minutes is amortised O(1) (high/low are rescanned only
 * when a minute holding the extreme expires). @internal
 */
const MINUTE_MS = 60_000;
const WINDOW_MS = 86_400_000;

interface Minute {
  readonly t: number;
  readonly open: number;
  base: number;
  quote: bigint;
  trades: number;
  high: number;
  low: number;
}

export interface WindowStats {
  readonly volumeBase: bigint;
  readonly volumeQuote: bigint;
  readonly trades: number;
  readonly high?: number;
  readonly low?: number;
  /** First trade price of the window (for the 24h change). */
  readonly open?: number;
}

export class RollingWindow {
  private readonly minutes: Minute[] = [];
  private head = 0;
  private base = 0n;
  private quote = 0n;
  private trades = 0;
  private high: number | undefined;
  private low: number | undefined;

  add(ms: number, price: number, base: number, quote: bigint): void {
    const t = Math.floor(ms / MINUTE_MS) * MINUTE_MS;
    let m = this.minutes[this.minutes.length - 1];
    if (!m || m.t < t) {
      m = { t, open: price, base: 0, quote: 0n, trades: 0, high: price, low: price };
      this.minutes.push(m);
    }
    m.base += base;
    m.quote += quote;
    m.trades += 1;
    if (price > m.high) m.high = price;
    if (price < m.low) m.low = price;
    this.base += BigInt(base);
    this.quote += quote;
    this.trades += 1;
    if (this.high === undefined || price > this.high) this.high = price;
    if (this.low === undefined || price < this.low) this.low = price;
  }

  /** Drops minutes that left the window ending at `ms`, then reports the window. */
  stats(ms: number): WindowStats {
    const cutoff = ms - WINDOW_MS;
    let rescan = false;
    while (this.head < this.minutes.length && this.minutes[this.head]!.t + MINUTE_MS <= cutoff) {
      const m = this.minutes[this.head++]!;
      this.base -= BigInt(m.base);
      this.quote -= m.quote;
      this.trades -= m.trades;
      if (m.high === this.high || m.low === this.low) rescan = true;
    }
    if (this.head > 1024) {
      this.minutes.splice(0, this.head);
      this.head = 0;
    }
    if (rescan) this.rescan();
    const first = this.minutes[this.head];
    return { volumeBase: this.base, volumeQuote: this.quote, trades: this.trades, high: this.high, low: this.low, open: first?.open };
  }

  private rescan(): void {
    this.high = undefined;
    this.low = undefined;
    for (let i = this.head; i < this.minutes.length; i++) {
      const m = this.minutes[i]!;
      if (this.high === undefined || m.high > this.high) this.high = m.high;
      if (this.low === undefined || m.low < this.low) this.low = m.low;
    }
  }
}
