/**
 * The web view's page script (served as `/app.js`): plain JS, no framework, no network but
 * its own origin's event stream. It reads the fields of `WebSnapshot` and updates the
 * page in place: the depth chart of the selected book on a canvas, its last trades, every
 * replica's status, the latency histogram. Every server string goes in through
 * `textContent` (or `new Option`), never as HTML. @internal
 */
import { TRADES_KEPT } from '../view/ViewModel';
import { WEB_SNAPSHOT_VERSION } from './WebSnapshot';

/** Fill colours of the depth chart's areas (RGB); the browser test looks for these pixels. */
export const DEPTH_COLORS = { bid: [22, 163, 74], ask: [220, 38, 38] } as const satisfies Record<'bid' | 'ask', readonly [number, number, number]>;

const rgb = (c: readonly number[]): string => `rgb(${c.join(', ')})`;

export const PAGE_SCRIPT = `'use strict';
(function () {
  var VERSION = ${WEB_SNAPSHOT_VERSION};
  var TRADE_ROWS = ${TRADES_KEPT};
  var BID = '${rgb(DEPTH_COLORS.bid)}', ASK = '${rgb(DEPTH_COLORS.ask)}';
  var BID_LINE = 'rgb(74, 222, 128)', ASK_LINE = 'rgb(248, 113, 113)', GRID = 'rgb(42, 47, 55)', TEXT = 'rgb(125, 133, 144)';
  var $ = function (id) { return document.getElementById(id); };
  var selected = null;
  var snapshots = 0;
  var statusItems = new Map();
  var tradeRows = [];
  var buckets = [];

  function setWord(el, word, tone) {
    el.textContent = word;
    el.className = 'word tone-' + tone;
  }

  function text(el, value) {
    if (el.textContent !== value) el.textContent = value;
  }

  function ms(us) {
    return (us / 1000).toFixed(1) + 'ms';
  }

  function cell(row, cls) {
    var td = document.createElement('td');
    if (cls) td.className = cls;
    row.appendChild(td);
    return td;
  }

  function buildTradeRows() {
    var body = $('trades').tBodies[0];
    for (var i = 0; i < TRADE_ROWS; i++) {
      var tr = document.createElement('tr');
      tradeRows.push({ tr: tr, time: cell(tr, 'dim'), side: cell(tr, ''), price: cell(tr, 'num'), size: cell(tr, 'num') });
      body.appendChild(tr);
    }
  }

  function renderMarkets(markets) {
    var select = $('market');
    var keys = markets.map(function (m) { return m.key; }).join(',');
    if (select.dataset.keys !== keys) {
      select.replaceChildren();
      markets.forEach(function (m) { select.add(new Option(m.symbol + ' (' + m.type + ' #' + m.id + ')', m.key)); });
      select.dataset.keys = keys;
      if (!markets.some(function (m) { return m.key === selected; })) selected = markets.length ? markets[0].key : null;
      select.value = selected || '';
    }
    return markets.find(function (m) { return m.key === selected; });
  }

  function renderBook(m) {
    setWord($('book-status'), m ? m.book.status : 'waiting', m ? m.book.tone : 'other');
    var b = m && m.book;
    text($('book-summary'), b ? 'bid ' + (b.bids[0] ? b.bids[0].price : '-') + '  ask ' + (b.asks[0] ? b.asks[0].price : '-') + '  mid ' + (b.mid || '-') + '  spread ' + (b.spread || '-') + '  last ' + (m.last || '-') : '');
    drawDepth($('depth'), b);
  }

  function renderTrades(m) {
    text($('trade-count'), m ? '(' + m.tradeCount + ' received)' : '');
    var trades = m ? m.trades : [];
    tradeRows.forEach(function (r, i) {
      var t = trades[i];
      text(r.time, t ? t.time : '');
      text(r.side, t ? t.side : '');
      r.side.className = t ? t.side : '';
      text(r.price, t ? t.price : '');
      text(r.size, t ? t.size : '');
      r.tr.hidden = !t;
    });
    $('trades').dataset.rows = String(trades.length);
  }

  function statusItem(name) {
    var item = statusItems.get(name);
    if (item) return item;
    var li = document.createElement('li');
    item = { li: li, name: document.createElement('span'), word: document.createElement('span'), detail: document.createElement('span') };
    item.detail.className = 'detail';
    li.append(item.name, item.word, item.detail);
    item.name.textContent = name;
    li.dataset.name = name;
    statusItems.set(name, item);
    return item;
  }

  function renderStatuses(s) {
    var list = $('statuses');
    var rows = [{ name: 'feed', status: s.feed.status, tone: s.feed.tone, detail: s.feed.reason }].concat(s.statuses);
    var seen = new Set();
    rows.forEach(function (r, i) {
      var item = statusItem(r.name);
      seen.add(r.name);
      setWord(item.word, r.status, r.tone);
      item.li.dataset.status = r.status;
      text(item.detail, r.detail);
      if (list.children[i] !== item.li) list.insertBefore(item.li, list.children[i] || null);
    });
    statusItems.forEach(function (item, name) {
      if (!seen.has(name)) { item.li.remove(); statusItems.delete(name); }
    });
  }

  /** Milliseconds (the unit is in the caption), a second as 1s: short enough for a narrow bar. */
  function boundLabel(us) {
    return us >= 1000000 ? us / 1000000 + 's' : String(us / 1000);
  }

  function renderLatency(s) {
    var l = s.latency;
    text($('latency-figures'), 'model p50 ' + ms(l.model.p50) + ' p99 ' + ms(l.model.p99) + ' (' + l.model.count + ' updates) · replica p50 ' + ms(l.feed.p50) + ' p99 ' + ms(l.feed.p99) + ' (worst of ' + l.feed.streams + ' streams) · pushed p50 ' + ms(l.sent.p50) + ' p99 ' + ms(l.sent.p99));
    var h = l.histogram;
    var root = $('histogram');
    if (buckets.length !== h.counts.length) {
      root.replaceChildren();
      buckets = h.counts.map(function (_, i) {
        var b = { el: document.createElement('div'), count: document.createElement('div'), bar: document.createElement('div'), bound: document.createElement('div') };
        b.el.className = 'bucket'; b.count.className = 'count'; b.bar.className = 'bar'; b.bound.className = 'bound';
        b.bound.textContent = i < h.boundsUs.length ? boundLabel(h.boundsUs[i]) : '>' + boundLabel(h.boundsUs[h.boundsUs.length - 1]);
        b.el.append(b.count, b.bar, b.bound);
        root.appendChild(b.el);
        return b;
      });
    }
    var max = Math.max.apply(null, h.counts.concat([1]));
    h.counts.forEach(function (c, i) {
      text(buckets[i].count, String(c));
      buckets[i].bar.style.height = (c / max) * 80 + '%';
    });
  }

  function drawDepth(canvas, book) {
    var dpr = window.devicePixelRatio || 1;
    var w = Math.max(1, Math.round(canvas.clientWidth * dpr)), h = Math.max(1, Math.round(canvas.clientHeight * dpr));
    if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
    var g = canvas.getContext('2d');
    g.clearRect(0, 0, w, h);
    var bids = book ? book.bids : [], asks = book ? book.asks : [];
    g.fillStyle = TEXT;
    g.font = 11 * dpr + 'px monospace';
    if (!bids.length || !asks.length) {
      g.fillText(book ? 'book has an empty side' : 'waiting for the book…', 10 * dpr, 20 * dpr);
      canvas.dataset.drawn = '0';
      return;
    }
    var num = parseFloat;
    var bestBid = num(bids[0].price), bestAsk = num(asks[0].price), mid = (bestBid + bestAsk) / 2;
    // Centred on the mid: bids fill the left half, asks the right.
    var half = Math.max(mid - num(bids[bids.length - 1].price), num(asks[asks.length - 1].price) - mid) * 1.05 || 1;
    var top = Math.max(num(bids[bids.length - 1].total), num(asks[asks.length - 1].total)) * 1.1 || 1;
    var pad = 18 * dpr, bottom = h - pad;
    var x = function (p) { return ((p - (mid - half)) / (2 * half)) * w; };
    var y = function (v) { return bottom - (v / top) * (bottom - pad); };
    g.strokeStyle = GRID;
    g.lineWidth = 1;
    g.beginPath(); g.moveTo(0, bottom + 0.5); g.lineTo(w, bottom + 0.5); g.moveTo(w / 2 + 0.5, pad); g.lineTo(w / 2 + 0.5, bottom); g.stroke();
    area(g, bids, x, y, bottom, 0, BID, BID_LINE);
    area(g, asks, x, y, bottom, w, ASK, ASK_LINE);
    g.fillStyle = TEXT;
    g.textAlign = 'left'; g.fillText(bids[bids.length - 1].price, 4 * dpr, h - 4 * dpr);
    g.textAlign = 'center'; g.fillText('mid ' + book.mid, w / 2, h - 4 * dpr);
    g.textAlign = 'right'; g.fillText(asks[asks.length - 1].price, w - 4 * dpr, h - 4 * dpr);
    g.textAlign = 'left'; g.fillText('depth ' + (num(bids[bids.length - 1].total) > num(asks[asks.length - 1].total) ? bids[bids.length - 1].total : asks[asks.length - 1].total), 4 * dpr, pad - 4 * dpr);
    canvas.dataset.drawn = '1';
  }

  /** One side as a filled staircase from its best level out to the edge \`edge\`. */
  function area(g, levels, x, y, bottom, edge, fill, line) {
    g.beginPath();
    g.moveTo(x(parseFloat(levels[0].price)), bottom);
    var prev = 0;
    levels.forEach(function (l) {
      var px = x(parseFloat(l.price));
      g.lineTo(px, y(prev));
      prev = parseFloat(l.total);
      g.lineTo(px, y(prev));
    });
    g.lineTo(edge, y(prev));
    g.lineTo(edge, bottom);
    g.closePath();
    g.fillStyle = fill;
    g.fill();
    g.strokeStyle = line;
    g.lineWidth = 1.5;
    g.stroke();
  }

  function render(s) {
    setWord($('feed'), 'feed ' + s.feed.status, s.feed.tone);
    text($('label'), s.label);
    text($('elapsed'), (s.elapsedMs / 1000).toFixed(0) + 's');
    var m = renderMarkets(s.markets);
    renderBook(m);
    renderTrades(m);
    renderStatuses(s);
    renderLatency(s);
    text($('footer'), 'frames/s ' + s.rates.framesPerSecond.toFixed(0) + ' · updates/s ' + s.rates.updatesPerSecond.toFixed(0) + ' · resyncs ' + s.resyncs + ' · errors ' + s.errors + (s.lastError ? ' · last error: ' + s.lastError : '') + (s.lastFault ? ' · last fault: ' + s.lastFault : ''));
  }

  function stopped(word) {
    setWord($('feed'), word, 'down');
    document.body.dataset.ended = '1';
  }

  var last = null;
  buildTradeRows();
  $('market').addEventListener('change', function (e) {
    selected = e.target.value;
    if (last) render(last);
  });
  var events = new EventSource('/events');
  events.onmessage = function (e) {
    var s;
    try { s = JSON.parse(e.data); } catch (err) { return; }
    if (s.v !== VERSION) { events.close(); return stopped('snapshot version ' + s.v + ', this page reads ' + VERSION + ': reload'); }
    last = s;
    render(s);
    snapshots++;
    document.body.dataset.snapshots = String(snapshots);
  };
  events.addEventListener('end', function () {
    events.close();
    stopped('view stopped');
  });
  events.onerror = function () {
    if (events.readyState !== EventSource.CLOSED) setWord($('feed'), 'page reconnecting', 'healing');
  };
})();
`;
