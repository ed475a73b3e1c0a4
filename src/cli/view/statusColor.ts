/** A status word coloured by what it means: green = healthy, yellow = healing, red = down. @internal */
import { dim, green, red, yellow } from '../term/ansi';

/** What a status means, whatever draws it (the terminal's colours, the web page's classes). */
export type StatusTone = 'good' | 'healing' | 'down' | 'other';

const GOOD = new Set(['live', 'open']);
const HEALING = new Set(['syncing', 'resyncing', 'connecting', 'reconnecting', 'waiting', 'idle']);
const DOWN = new Set(['stale', 'failed', 'closed']);

export function statusTone(status: string): StatusTone {
  if (GOOD.has(status)) return 'good';
  if (HEALING.has(status)) return 'healing';
  if (DOWN.has(status)) return 'down';
  return 'other';
}

const COLOR: Readonly<Record<StatusTone, (text: string) => string>> = { good: green, healing: yellow, down: red, other: dim };

export function statusColor(status: string): string {
  return COLOR[statusTone(status)](status);
}
