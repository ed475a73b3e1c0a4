/**
 * CPU time of another process from /proc/<pid>/stat (utime + stime, every thread), in µs.
 * Resolution: one clock tick (`getconf CLK_TCK`, 10 ms on Linux), so windows should hold
 * hundreds of ms of CPU for a figure within a few percent. Undefined where there is no /proc.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSec: number | undefined;

function clockTicks(): number {
  if (ticksPerSec === undefined) {
    try {
      ticksPerSec = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8', timeout: 5_000 }).trim()) || 100;
    } catch {
      ticksPerSec = 100;
    }
  }
  return ticksPerSec;
}

/** utime + stime of `pid` in µs, or undefined when it cannot be read. */
export function procCpuUs(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces: fields are counted after its closing paren.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name (the state is field 3).
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? (ticks * 1e6) / clockTicks() : undefined;
}
