/**
 * Diagnosis of the bus benchmark's tail: with `BUS_BENCH_SLOW_LOG=<dir>`, a process notes each
 * timed update seen more than 2 ms after its send stamp (wall ms, seq, latency µs) and writes
 * them to `<dir>/<name>-<pid>.log` at exit; joined by seq, the relay's and the consumers' logs
 * say where a slow update lost its time. Off (undefined) without the variable.
 */
import { writeFileSync } from 'node:fs';

const SLOW_NS = 2_000_000;

export class SlowUpdateLog {
  private readonly lines: string[] = [];

  private constructor(path: string) {
    process.on('exit', () => writeFileSync(path, this.lines.join('\n')));
  }

  /** The log of this process under `name`, when the variable asks for one. */
  static fromEnv(name: string): SlowUpdateLog | undefined {
    const dir = process.env['BUS_BENCH_SLOW_LOG'];
    return dir === undefined ? undefined : new SlowUpdateLog(`${dir}/${name}-${process.pid}.log`);
  }

  note(seq: bigint | number, latencyNs: number): void {
    if (latencyNs > SLOW_NS) this.lines.push(`${Date.now()} ${seq} ${Math.round(latencyNs / 1000)}`);
  }
}
