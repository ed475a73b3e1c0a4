/**
 * The subaccount panel of the live view: margin summary, balances, positions and open
 * orders, amounts through the exact unit helpers. Pure: view model in, lines out. @internal
 */
import type { Order, Position } from '../../protocol';
import { bold, cyan, dim, green, padEnd, red, visibleLength } from '../term/ansi';
import { safeText } from '../term/safeText';
import { tokenAmount } from './MarketFormat';
import { statusColor } from './statusColor';
import type { ViewModel } from './ViewModel';

export interface AccountLayout {
  readonly width: number;
  /** Positions listed at most. */
  readonly positions: number;
  /** Open orders listed at most. */
  readonly orders: number;
}

/** `Abcd…wxyz`, its control characters made visible (an address may come from the exchange). */
export function shortAddress(address: string): string {
  return safeText(address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address);
}

function signed(text: string): string {
  return text.startsWith('-') ? red(text) : green(`+${text}`);
}

function positionLine(vm: ViewModel, p: Position): string {
  const f = vm.formats.ofPosition(p.market_id);
  if (!f) return ` market ${p.market_id} ${p.side} ${p.size_base_lots} lots @ ${p.entry_price_ticks} ticks`;
  const side = p.side === 'long' ? green('long ') : red('short');
  const liq = p.liquidation_price_ticks === undefined ? '' : `  liq ${f.price(p.liquidation_price_ticks)}`;
  return ` ${padEnd(f.symbol, 9)} ${side} ${f.size(p.size_base_lots)} @ ${f.price(p.entry_price_ticks)}  value ${f.quote(p.position_value_quote_lots)}  uPnL ${signed(f.quote(p.unrealized_pnl_quote_lots))}${liq}`;
}

function orderText(vm: ViewModel, o: Order): string {
  const f = vm.formats.of(o.market_type, o.market_id);
  const side = o.side === 'bid' ? green('bid') : red('ask');
  if (!f) return `#${o.market_id} ${side} ${o.remaining_size_base_lots}@${o.price_ticks}`;
  return `${f.symbol} ${side} ${f.size(o.remaining_size_base_lots)}@${f.price(o.price_ticks)}`;
}

/** The panel's lines (none when no account is watched). */
export function accountPanel(vm: ViewModel, layout: AccountLayout): string[] {
  const target = vm.accountTarget;
  if (!target) return [dim(' no account watched (pass --address and --subaccount-id)')];
  const head = ` ${bold(cyan('account'))} ${shortAddress(target.address)} / ${target.subaccount_id}  ${statusColor(vm.account?.status ?? 'waiting')}`;
  const a = vm.account?.state;
  if (!a) return [head, dim(' waiting for the account snapshot...')];
  const q = vm.formats.any();
  const quote = (lots: string) => (q ? `${q.quote(lots)} ${q.quoteToken}` : `${lots} quote lots`);
  const sub = a.subaccount;
  const lines = [`${head}  ${dim(sub.status)}  equity ${bold(quote(sub.equity_quote_lots))}  available ${quote(sub.available_margin_quote_lots)}  IM ${quote(sub.initial_margin_requirement_quote_lots)}`];
  const balances = [...a.balances.values()].map((b) => {
    const d = vm.tokenDecimals.get(b.token_id);
    const locked = b.locked_token_atoms === '0' ? '' : dim(` (locked ${tokenAmount(b.locked_token_atoms, d)})`);
    return `${safeText(b.token_id)} ${tokenAmount(b.total_token_atoms, d)}${locked}`;
  });
  lines.push(` ${dim('balances')}  ${balances.join('   ') || dim('none')}`);
  const positions = [...a.positions.values()];
  lines.push(` ${dim(`positions (${positions.length})`)}`);
  for (const p of positions.slice(0, layout.positions)) lines.push(positionLine(vm, p));
  if (positions.length > layout.positions) lines.push(dim(`  … ${positions.length - layout.positions} more`));
  const orders = [...a.openOrders.values()];
  lines.push(` ${dim(`open orders (${orders.length})`)}`);
  // Orders packed several to a line.
  let line = ' ';
  let count = 0;
  for (const o of orders) {
    const text = orderText(vm, o);
    if (visibleLength(line) + visibleLength(text) + 3 > layout.width) {
      lines.push(line);
      if (++count >= layout.orders) {
        line = dim('  …');
        break;
      }
      line = ' ';
    }
    line += `${text}   `;
  }
  if (line.trim()) lines.push(line);
  return lines.map((l) => padEnd(l, layout.width));
}
