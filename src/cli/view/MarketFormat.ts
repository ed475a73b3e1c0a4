/**
 * Display decimals of one market, through the exact unit helpers of `src/units`: every
 * price is a whole number of ticks, so it is printed exactly and padded to the tick's
 * decimals (columns line up without any rounding). @internal
 */
import type { Market } from '../../protocol';
import { atomsToAmount, baseLotsToSize, formatRatio, quoteLotsToQuoteAmount, ticksToPrice, type FormatOptions } from '../../units';
import { safeText } from '../term/safeText';

/** Decimals shown when a unit has no finite decimal expansion (rounded, never silently). */
const FALLBACK_DECIMALS = 8;

type Integer = bigint | string | number;

function big(v: Integer): bigint {
  return typeof v === 'bigint' ? v : BigInt(v);
}

function decimalsOf(text: string): number {
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}

/** Pads the fraction of exact decimal text with zeros to `decimals` digits (never cuts). */
export function padFraction(text: string, decimals: number): string {
  if (decimals === 0) return text;
  const have = decimalsOf(text);
  if (have >= decimals) return text;
  return `${text}${have === 0 ? '.' : ''}${'0'.repeat(decimals - have)}`;
}

/** Formats with the exact helper; a unit without finite expansion falls back to rounding. */
function exactOrRounded(f: (opts: FormatOptions) => string): { text: string; opts: FormatOptions } {
  try {
    return { text: f({}), opts: {} };
  } catch {
    const opts: FormatOptions = { maxDecimals: FALLBACK_DECIMALS, rounding: 'half-even' };
    return { text: f(opts), opts };
  }
}

/**
 * @example
 * const f = new MarketFormat(market);   // BTC-PERP, one tick = 1 USDC, one lot = 0.0001 BTC
 * f.price(64995n)  // "64995"
 * f.size(12n)      // "0.0012"
 */
export class MarketFormat {
  /** Decimals of one tick, one base lot and one quote lot. */
  readonly priceDecimals: number;
  readonly sizeDecimals: number;
  readonly quoteDecimals: number;
  private readonly priceOpts: FormatOptions;
  private readonly sizeOpts: FormatOptions;
  private readonly quoteOpts: FormatOptions;

  constructor(readonly market: Market) {
    const p = exactOrRounded((o) => ticksToPrice(market, 1n, o));
    const s = exactOrRounded((o) => baseLotsToSize(market, 1n, o));
    const q = exactOrRounded((o) => quoteLotsToQuoteAmount(market, 1n, o));
    this.priceDecimals = decimalsOf(p.text);
    this.sizeDecimals = decimalsOf(s.text);
    this.quoteDecimals = decimalsOf(q.text);
    this.priceOpts = p.opts;
    this.sizeOpts = s.opts;
    this.quoteOpts = q.opts;
  }

  /** The market's symbol for display: the exchange chose it, so its control characters are made visible (safeText.ts). */
  get symbol(): string {
    return safeText(this.market.symbol);
  }

  /** The quote token's name for display, made safe like {@link symbol}. */
  get quoteToken(): string {
    return safeText(this.market.quote_token);
  }

  /** Price ticks as a decimal price (quote units per base unit). */
  price(ticks: Integer): string {
    return padFraction(ticksToPrice(this.market, big(ticks), this.priceOpts), this.priceDecimals);
  }

  /** Half of a price given in ticks (a mid, `bid + ask`), exactly: it may have one more decimal. */
  halfPrice(twiceTicks: Integer): string {
    const whole = scaled(ticksToPrice(this.market, big(twiceTicks), this.priceOpts));
    return padFraction(formatRatio(whole.units, 2n * 10n ** BigInt(whole.scale)), this.priceDecimals);
  }

  /** Base lots as a decimal size (base units). */
  size(lots: Integer): string {
    return padFraction(baseLotsToSize(this.market, big(lots), this.sizeOpts), this.sizeDecimals);
  }

  /** Quote lots as a decimal quote amount (may be negative). */
  quote(lots: Integer): string {
    return padFraction(quoteLotsToQuoteAmount(this.market, big(lots), this.quoteOpts), this.quoteDecimals);
  }
}

function scaled(text: string): { units: bigint; scale: number } {
  const scale = decimalsOf(text);
  return { units: BigInt(text.replace('.', '')), scale };
}

/** Token atoms as a decimal amount (exact). */
export function tokenAmount(atoms: Integer, decimals: number | undefined): string {
  return decimals === undefined ? `${big(atoms)} atoms` : atomsToAmount(big(atoms), decimals);
}

/** A rate in hundredths of a basis point as a percentage, e.g. -10 -> "-0.001%". */
export function rate100thBpsToPercent(v: number | bigint): string {
  return `${formatRatio(BigInt(v), 10_000n)}%`;
}

/** A value in basis points as a percentage, e.g. 125 -> "1.25%". */
export function bpsToPercent(v: number | bigint | string): string {
  return `${formatRatio(BigInt(v), 100n)}%`;
}

/** The formats of a set of markets, by type and id. */
export class MarketFormats {
  private readonly byKey = new Map<string, MarketFormat>();

  constructor(markets: readonly Market[]) {
    for (const m of markets) this.byKey.set(`${m.market_type}:${m.market_id}`, new MarketFormat(m));
  }

  /** The format of a market, or undefined when it is not listed. */
  of(type: string, id: number): MarketFormat | undefined {
    return this.byKey.get(`${type}:${id}`);
  }

  /** A position's market (positions carry only `market_id`): the perp market first. */
  ofPosition(id: number): MarketFormat | undefined {
    return this.of('perp', id) ?? this.of('spot', id);
  }

  /** Any format, for amounts in quote lots that belong to no market (subaccount margins). */
  any(): MarketFormat | undefined {
    return this.byKey.values().next().value;
  }
}
