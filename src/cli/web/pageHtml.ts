/**
 * The web view's one page: a skeleton the page script fills in place (it never reloads).
 * Its script and style come from the same origin (`/app.js`, `/app.css`), so the
 * Content-Security-Policy can forbid every inline script and every other origin. @internal
 */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>exchange-replica view</title>
<link rel="stylesheet" href="/app.css">
<script src="/app.js" defer></script>
</head>
<body data-snapshots="0">
<header>
  <h1>exchange-replica view</h1>
  <span id="feed" class="word tone-healing">connecting</span>
  <span id="label" class="dim"></span>
  <span id="elapsed" class="dim"></span>
</header>
<main>
  <section id="book-panel">
    <div class="panel-head">
      <select id="market" aria-label="market"></select>
      <span>book <span id="book-status" class="word tone-other">waiting</span></span>
      <span id="book-summary" class="dim"></span>
    </div>
    <canvas id="depth" width="720" height="300" aria-label="depth chart: cumulative bids (left) and asks (right)"></canvas>
  </section>
  <section id="trades-panel">
    <h2>last trades <span id="trade-count" class="dim"></span></h2>
    <table id="trades">
      <thead><tr><th>time (UTC)</th><th>side</th><th class="num">price</th><th class="num">size</th></tr></thead>
      <tbody></tbody>
    </table>
  </section>
  <section id="status-panel">
    <h2>replicas <span class="dim">(feed and every subscription)</span></h2>
    <ul id="statuses"></ul>
  </section>
  <section id="latency-panel">
    <h2>latency <span class="dim">server timestamp → view model</span></h2>
    <div id="latency-figures" class="dim"></div>
    <div id="histogram"></div>
    <div class="dim caption">updates per bucket; bucket upper bound in ms</div>
  </section>
</main>
<footer id="footer" class="dim"></footer>
</body>
</html>
`;
