/**
 * `watch` on a terminal: the latest state pretty-printed in place (state channels), or the
 * newest records as a scrolling list (event channels), under a header with the stream's
 * status. Drawn on a timer, so a fast stream costs one draw per tick. @internal
 */
import { bold, dim, inverse, padEnd } from '../term/ansi';
import { safeJson } from '../term/safeText';
import type { Terminal } from '../term/Terminal';
import { statusColor } from '../view/statusColor';
import { prettyJson } from './prettyJson';
import type { WatchRecord } from './watchSource';

/** Event records kept for the scrolling list. */
const KEPT = 200;

export class WatchScreen {
  private latest: WatchRecord | undefined;
  private readonly recent: WatchRecord[] = [];
  private count = 0;
  private feed = 'idle';

  constructor(
    private readonly terminal: Terminal,
    private readonly label: string,
    private readonly stream: string,
  ) {}

  push(record: WatchRecord): void {
    this.count++;
    if ('kind' in record) {
      this.recent.push(record);
      if (this.recent.length > KEPT) this.recent.shift();
    } else this.latest = record;
  }

  setFeed(state: string): void {
    this.feed = state;
  }

  draw(): void {
    const width = this.terminal.columns;
    const rows = this.terminal.rows;
    const lines = [inverse(padEnd(` exchange-replica watch ${this.stream} · ${this.label} · feed ${this.feed} · ${this.count} emissions · q quit`, width))];
    if (this.latest) {
      const r = this.latest;
      lines.push(` ${bold('status')} ${statusColor(String(r.status))} · seq ${r.seq} · snapshot ${r.snapshot_id} · cause ${r.cause}`, '');
      lines.push(...prettyJson(r.state, width - 1, ' '));
    } else if (this.recent.length > 0) {
      lines.push(dim(` newest last (${this.recent.length} shown of ${this.count})`));
      const room = Math.max(1, rows - lines.length);
      for (const r of this.recent.slice(-room)) {
        const { channel: _c, stream: _s, ...rest } = r;
        lines.push(` ${safeJson(rest)}`);
      }
    } else {
      lines.push(dim(' waiting for the first snapshot...'));
    }
    this.terminal.draw(lines);
  }
}
