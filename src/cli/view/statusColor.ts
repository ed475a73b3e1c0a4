/** A status word coloured by what it means: green = healthy, yellow = healing, red = down. @internal */
import { dim, green, red, yellow } from '../term/ansi';

const GOOD = new Set(['live', 'open']);
const HEALING = new Set(['syncing', 'resyncing', 'connecting', 'reconnecting', 'waiting', 'idle']);

export function statusColor(status: string): string {
  if (GOOD.has(status)) return green(status);
  if (HEALING.has(status)) return yellow(status);
  if (status === 'stale' || status === 'failed' || status === 'closed') return red(status);
  return dim(status);
}
