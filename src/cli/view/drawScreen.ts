/**
 * The full screen of the live view, as lines: header, the two market panels (side by side
 * when the terminal is wide enough, else stacked and shorter), the account, every
 * subscription's status, latency and rates, and the keys. Pure. @internal
 */
import { bold, dim, inverse, padEnd, truncate, visibleLength, yellow } from '../term/ansi';
import { safeText } from '../term/safeText';
import { accountPanel } from './accountPanel';
import { marketPanel, type PanelLayout } from './marketPanel';
import { statusColor } from './statusColor';
import { ms, type ViewFrame } from './ViewFrame';

/** Width of a market panel when two fit side by side. */
const PANEL_WIDTH = 58;

function header(f: ViewFrame, width: number): string {
  const c = f.vm.connection;
  const text = ` exchange-replica view · ${(f.elapsedMs / 1000).toFixed(0)}s · feed ${statusColor(c.state)} ${dim(`(${safeText(c.reason)})`)} · ${safeText(f.label)}`;
  return inverse(padEnd(text, width));
}

/** Lines of a market panel with `levels` per side and `trades` listed: 8 fixed + 2 per level + trades. */
function panelHeight(levels: number, trades: number): number {
  return 8 + 2 * levels + trades;
}

/** The market panels in at most `budget` rows: side by side when wide enough, else stacked. */
function marketRows(f: ViewFrame, width: number, budget: number): string[] {
  const panels = f.vm.markets;
  const sideBySide = panels.length > 1 && width >= PANEL_WIDTH * 2 + 1;
  // Stacked panels share the height, with a blank line after each.
  const perPanel = (sideBySide ? budget : Math.floor(budget / panels.length)) - 1;
  const levels = Math.max(2, Math.min(10, Math.floor((perPanel - panelHeight(0, 2)) / 2)));
  const trades = Math.max(2, Math.min(6, perPanel - panelHeight(levels, 0)));
  const layout: PanelLayout = { width: sideBySide ? Math.floor((width - 1) / 2) : width, levels, trades };
  // On a very small terminal a panel is cut rather than pushing the status lines off screen.
  const drawn = panels.map((mv) => marketPanel(mv, layout).slice(0, Math.max(1, perPanel)));
  if (!sideBySide) return drawn.flatMap((lines) => [...lines, '']);
  const out: string[] = [];
  const height = Math.max(...drawn.map((d) => d.length));
  for (let i = 0; i < height; i++) out.push(drawn.map((d) => d[i] ?? ' '.repeat(layout.width)).join(dim('│')));
  out.push('');
  return out;
}

function subscriptionLines(f: ViewFrame, width: number): string[] {
  const cells = f.vm.subscriptions().map((s) => `${s.name} ${statusColor(s.status)}${s.detail ? dim(` (${s.detail})`) : ''}`);
  const lines: string[] = [];
  let line = ` ${bold('subscriptions')} `;
  for (const c of cells) {
    const next = `${line}${c}  `;
    if (visibleLength(next) > width && line.trim()) {
      lines.push(line);
      line = `   ${c}  `;
    } else line = next;
  }
  lines.push(line);
  return lines;
}

function metricsLines(f: ViewFrame): string[] {
  const r = f.render;
  const resyncs = Object.entries(f.resyncs.byTrigger).map(([k, v]) => `${k} ${v}`).join(', ');
  const lines = [
    ` ${bold('latency')} server→draw p50 ${ms(r.latency.p50)} p99 ${ms(r.latency.p99)} · server→replica p50 ${ms(f.feed.p50)} p99 ${ms(f.feed.p99)} ${dim('(worst stream)')}`,
    ` ${bold('rates')} frames/s ${r.framesPerSecond.toFixed(0)} · updates/s ${r.updatesPerSecond.toFixed(0)} · draws/s ${r.drawsPerSecond.toFixed(1)} · resyncs ${f.resyncs.total}${resyncs ? ` (${resyncs})` : ''} · errors ${f.vm.errorCount}`,
  ];
  // The message may quote the server.
  if (f.vm.lastError) lines.push(dim(` last error: ${safeText(f.vm.lastError.message)}`));
  return lines;
}

function keysLine(f: ViewFrame): string {
  const fault = f.lastFault ? `  last fault: ${yellow(f.lastFault.kind)} ${dim(`${safeText(f.lastFault.description)} (${new Date(f.lastFault.atMs).toISOString().slice(11, 19)})`)}` : '';
  const fKey = f.faultsEnabled ? `${bold('f')} inject a random fault` : dim('f disabled (real exchange)');
  return ` ${fKey} · ${bold('q')} quit${fault}`;
}

/** Every line of the screen for a terminal of `width` x `rows`: the status lines always fit. */
export function drawScreen(f: ViewFrame, width: number, rows: number): string[] {
  const head = [header(f, width), ''];
  const footer = [...subscriptionLines(f, width), ...metricsLines(f), keysLine(f)];
  let account = [...accountPanel(f.vm, { width, positions: 3, orders: 2 }), ''];
  let budget = rows - head.length - footer.length - account.length;
  // The books come first: on a short terminal the account shrinks to its first line.
  if (budget < panelHeight(2, 2) + 1) {
    account = [account[0]!];
    budget = rows - head.length - footer.length - account.length;
  }
  const markets = marketRows(f, width, budget).slice(0, Math.max(0, budget));
  return [...head, ...markets, ...account, ...footer].map((line) => truncate(line, width));
}
