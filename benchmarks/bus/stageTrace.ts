/**
 * Where the bus's latency goes, update by update: each process of the bus benchmark notes,
 * in a measuring window, when each update passed its stage (the relay: its publish call to
 * NATS; a consumer: its emission; `bare`: its decode), on the machine's monotonic clock (one
 * clock for every process, see wallClock.ts). Joined by seq, `decompose` splits each
 * update's latency (feed send -> bus consumer emission) into feed -> relay publish, relay
 * publish -> the bare consumer (nats-server's core delivery and a process waking up), and
 * relay publish -> the bus consumer's emission (JetStream's store and delivery, the
 * consumer's read, decode, replica and emission), and says which stage the slowest updates
 * lost their time in.
 */
import type { StageTrace } from './busProtocol';

/** The monotonic clock in µs (CLOCK_MONOTONIC: shared by every process of the machine). */
export const monoUs = (): number => Number(process.hrtime.bigint()) / 1000;

/** A feed stamp (Unix ns, decimal) on the monotonic clock in µs. */
export function stampToMonoUs(anchorNs: bigint): (timestampNs: string | bigint) => number {
  return (ts) => Number(BigInt(ts) - anchorNs) / 1000;
}

/** The notes of one process in one window. */
export class StageRecorder {
  private seqs: number[] = [];
  private atUs: number[] = [];
  private sentUs: number[] = [];
  on = false;

  start(): void {
    this.seqs = [];
    this.atUs = [];
    this.sentUs = [];
    this.on = true;
  }

  note(seq: number, atUs: number, sentUs?: number): void {
    this.seqs.push(seq);
    this.atUs.push(atUs);
    if (sentUs !== undefined) this.sentUs.push(sentUs);
  }

  take(): StageTrace {
    this.on = false;
    return { seqs: this.seqs, atUs: this.atUs, ...(this.sentUs.length === this.seqs.length && this.seqs.length > 0 ? { sentUs: this.sentUs } : {}) };
  }
}

/** p50 / p99 of a stage, µs. */
export interface StageFigures {
  readonly p50Us: number;
  readonly p99Us: number;
}

/** One window's decomposition (see the module comment). */
export interface Decomposition {
  /** Updates seen by every stage. */
  readonly updates: number;
  /** Feed send -> the relay's publish call (the relay's read, decode, replica, batch). */
  readonly toRelay: StageFigures;
  /** Relay publish -> the bare consumer's decode (nats-server's core delivery, a process waking up, the decode). */
  readonly relayToBare: StageFigures;
  /** Relay publish -> the bus consumer's emission (JetStream store + push delivery, the consumer's read and replica). */
  readonly relayToBus: StageFigures;
  /** Bare decode -> bus emission (what JetStream and the replica add over a core subscription; negative when the bus is first). */
  readonly bareToBus: StageFigures;
  /** Feed send -> the bare consumer's decode: the same-window floor of any bus consumer. */
  readonly bare: StageFigures;
  /** Feed send -> the bus consumer's emission, and -> the direct client's emission. */
  readonly bus: StageFigures;
  readonly direct: StageFigures;
  /** The slowest 1% of updates at the bus consumer: their mean time in each stage, µs. */
  readonly slowest: { readonly toRelay: number; readonly relayToBare: number; readonly bareToBus: number; readonly total: number };
}

const pct = (sorted: readonly number[], p: number): number => (sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!);
const figures = (xs: number[]): StageFigures => {
  xs.sort((a, b) => a - b);
  return { p50Us: pct(xs, 0.5), p99Us: pct(xs, 0.99) };
};

const bySeq = (t: StageTrace): Map<number, number> => new Map(t.seqs.map((s, i) => [s, t.atUs[i]!]));

/** Joins the traces of one window by seq; `bare` carries the send stamps. */
export function decompose(relay: StageTrace, bare: StageTrace, bus: StageTrace, direct: StageTrace): Decomposition | undefined {
  if (bare.sentUs === undefined) return undefined;
  const r = bySeq(relay);
  const b = bySeq(bus);
  const d = bySeq(direct);
  const rows: { sent: number; relay: number; bare: number; bus: number; direct: number | undefined }[] = [];
  for (let i = 0; i < bare.seqs.length; i++) {
    const seq = bare.seqs[i]!;
    const relayAt = r.get(seq);
    const busAt = b.get(seq);
    if (relayAt === undefined || busAt === undefined) continue;
    rows.push({ sent: bare.sentUs[i]!, relay: relayAt, bare: bare.atUs[i]!, bus: busAt, direct: d.get(seq) });
  }
  if (rows.length === 0) return undefined;
  const slow = [...rows].sort((x, y) => y.bus - y.sent - (x.bus - x.sent)).slice(0, Math.max(1, Math.floor(rows.length / 100)));
  const mean = (f: (x: (typeof rows)[number]) => number) => slow.reduce((a, x) => a + f(x), 0) / slow.length;
  return {
    updates: rows.length,
    toRelay: figures(rows.map((x) => x.relay - x.sent)),
    relayToBare: figures(rows.map((x) => x.bare - x.relay)),
    relayToBus: figures(rows.map((x) => x.bus - x.relay)),
    bareToBus: figures(rows.map((x) => x.bus - x.bare)),
    bare: figures(rows.map((x) => x.bare - x.sent)),
    bus: figures(rows.map((x) => x.bus - x.sent)),
    direct: figures(rows.flatMap((x) => (x.direct === undefined ? [] : [x.direct - x.sent]))),
    slowest: { toRelay: mean((x) => x.relay - x.sent), relayToBare: mean((x) => x.bare - x.relay), bareToBus: mean((x) => x.bus - x.bare), total: mean((x) => x.bus - x.sent) },
  };
}
