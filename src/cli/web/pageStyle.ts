/** The web view's style sheet (served as `/app.css`): dark, the terminal view's colours. @internal */
export const PAGE_STYLE = `
:root { color-scheme: dark; --bg: #111418; --panel: #1a1e24; --text: #d6dbe1; --dim: #7d8590;
  --good: #22c55e; --healing: #eab308; --down: #ef4444; --buy: #22c55e; --sell: #ef4444; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
header { display: flex; gap: 1em; align-items: baseline; padding: 8px 14px; background: #0b0d10; border-bottom: 1px solid #2a2f37; }
h1 { font-size: 15px; margin: 0; }
h2 { font-size: 13px; margin: 0 0 6px; }
main { display: grid; grid-template-columns: minmax(420px, 2fr) minmax(300px, 1fr); gap: 12px; padding: 12px; }
section { background: var(--panel); border: 1px solid #2a2f37; border-radius: 6px; padding: 10px; min-width: 0; }
.panel-head { display: flex; gap: 1em; align-items: baseline; margin-bottom: 6px; }
select { background: var(--bg); color: var(--text); border: 1px solid #2a2f37; font: inherit; }
canvas { display: block; width: 100%; height: 300px; background: var(--bg); }
table { width: 100%; border-collapse: collapse; }
th { text-align: left; color: var(--dim); font-weight: normal; }
td, th { padding: 1px 6px; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.buy { color: var(--buy); }
.sell { color: var(--sell); }
.dim { color: var(--dim); }
.tone-good { color: var(--good); }
.tone-healing { color: var(--healing); }
.tone-down { color: var(--down); }
.tone-other { color: var(--dim); }
#statuses { list-style: none; margin: 0; padding: 0; columns: 2; }
#statuses li { break-inside: avoid; }
#statuses .word { margin-left: .6em; }
#statuses .detail { margin-left: .6em; color: var(--dim); }
#histogram { display: flex; align-items: flex-end; gap: 4px; height: 140px; margin-top: 8px; }
#histogram .bucket { flex: 1; display: flex; flex-direction: column; justify-content: flex-end; height: 100%; min-width: 0; }
#histogram .bar { background: #60a5fa; min-height: 1px; }
#histogram .count, #histogram .bound { font-size: 10px; color: var(--dim); text-align: center; overflow: hidden; white-space: nowrap; }
.caption { font-size: 11px; text-align: center; margin-top: 2px; }
footer { padding: 0 14px 12px; }
`;
