/**
 * The report page's style sheet, inlined into the page (its hash goes into the page's
 * Content-Security-Policy). Light and dark by `prefers-color-scheme`; colours chosen for at least
 * 4.5:1 contrast in both. Style only: the page's code is in the other files of this folder.
 */
export const PAGE_STYLE = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1b1b1b; --muted: #4f4f4f; --line: #d0d0d0; --card: #f6f7f9;
  --link: #0b57d0; --mark-bg: #ffe08a; --mark-fg: #000000; --add: #dff5e1; --del: #fde2e1; --fold: #eceff3;
  --user: #1f7a35; --assistant: #0b6fa4; --toolResult: #9a6200; --system: #3b4fc4; --other: #8e3fa8; --focus: #c2410c; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #131518; --fg: #e8e8e8; --muted: #b4b4b4; --line: #3a3f46; --card: #1c1f24; --link: #8ab4f8;
    --mark-bg: #7a5c00; --mark-fg: #ffffff; --add: #17381f; --del: #4a1d1d; --fold: #262a31;
    --user: #5cc97a; --assistant: #5cb8ea; --toolResult: #e0a84a; --system: #9aa8ff; --other: #d59cf0; --focus: #fb923c; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
a { color: var(--link); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip { position: absolute; left: -9999px; top: 0; }
.skip:focus { left: 8px; top: 8px; background: var(--bg); padding: 4px 8px; z-index: 10; }
header, main, footer, nav { padding: 0 16px; }
header { border-bottom: 1px solid var(--line); padding-bottom: 8px; }
h1 { font-size: 20px; margin: 12px 0 4px; word-break: break-all; }
h2 { font-size: 17px; margin: 16px 0 8px; }
h3 { font-size: 14px; margin: 0 0 4px; font-weight: 600; }
.facts { margin: 0; padding: 0; list-style: none; color: var(--muted); }
nav ul { display: flex; flex-wrap: wrap; gap: 12px; list-style: none; padding: 0; margin: 8px 0; }
form.search { display: flex; gap: 8px; align-items: center; margin-top: 8px; flex-wrap: wrap; }
form.search input { font: inherit; padding: 4px 8px; min-width: 18em; color: var(--fg); background: var(--bg); border: 1px solid var(--muted); border-radius: 4px; }
button { font: inherit; color: var(--fg); background: var(--card); border: 1px solid var(--muted); border-radius: 4px; padding: 2px 10px; cursor: pointer; }
button:disabled { opacity: 0.6; cursor: default; }
.keys { color: var(--muted); margin: 4px 0 0; }
.pair { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 16px; }
.pair-head { font-weight: 600; color: var(--muted); margin: 0 0 4px; }
.pair-head .side { margin: 0; }
@media (max-width: 900px) { .pair { grid-template-columns: minmax(0, 1fr); } }
ol.list { list-style: none; padding: 0; margin: 0; }
ol.list > li { margin: 0 0 8px; }
.side-out { display: flex; flex-direction: column; gap: 8px; }
.msg, .row, .side-hist { background: var(--card); border: 1px solid var(--line); border-left: 4px solid var(--other); border-radius: 4px; padding: 6px 8px; }
.row, .side-hist { border-left-color: var(--line); }
.row.marked, .side-hist.marked { border-left-color: var(--focus); }
.changed { margin: 0 0 4px; color: var(--fg); }
.changed .tag { border-color: var(--focus); }
.hmsg { border-top: 1px dashed var(--line); margin-top: 6px; padding-top: 6px; }
.role-user { border-left-color: var(--user); } .role-assistant { border-left-color: var(--assistant); }
.role-toolResult { border-left-color: var(--toolResult); } .role-system { border-left-color: var(--system); }
.meta, .src, .fate, .entry { color: var(--muted); margin: 0 0 4px; overflow-wrap: anywhere; }
.dropped .fate { color: var(--fg); font-weight: 600; }
.tag { display: inline-block; border: 1px solid var(--muted); border-radius: 3px; padding: 0 4px; margin-right: 4px; font-size: 12px; }
pre { margin: 0 0 4px; white-space: pre-wrap; overflow-wrap: anywhere; font: 12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.part-thinking pre, .part-note pre, .part-section pre { color: var(--muted); font-style: italic; }
.part-error pre { font-weight: 600; }
mark.inv { background: var(--mark-bg); color: var(--mark-fg); border-radius: 2px; }
img.thumb { max-width: 160px; max-height: 120px; border: 1px solid var(--line); display: block; margin: 2px 0; }
.flash { outline: 3px solid var(--focus); }
.pager { display: flex; gap: 8px; align-items: center; margin: 0 0 8px; }
.diff { border: 1px solid var(--line); border-radius: 4px; padding: 4px; }
.diff .d-add { background: var(--add); } .diff .d-del { background: var(--del); } .diff .d-fold { background: var(--fold); color: var(--muted); }
.diff span { display: block; }
svg.chart { display: block; width: 100%; height: 120px; background: var(--card); border: 1px solid var(--line); border-radius: 4px; }
svg .axis { stroke: var(--muted); stroke-width: 1; }
svg .grown { fill: none; stroke: var(--assistant); stroke-width: 2; vector-effect: non-scaling-stroke; }
svg .window-line { stroke: var(--focus); stroke-width: 2; stroke-dasharray: 6 4; vector-effect: non-scaling-stroke; }
.legend { margin: 8px 0 2px; color: var(--muted); }
.window { margin: 0 0 4px; }
.window.over { font-weight: 600; }
.chart-controls { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; margin: 4px 0; }
svg text { fill: var(--fg); font-size: 12px; }
.fill-user { fill: var(--user); } .fill-assistant { fill: var(--assistant); } .fill-toolResult { fill: var(--toolResult); }
.fill-system { fill: var(--system); } .fill-other { fill: var(--other); }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border: 1px solid var(--line); padding: 2px 8px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 6px; border-radius: 2px; }
.bg-user { background: var(--user); } .bg-assistant { background: var(--assistant); } .bg-toolResult { background: var(--toolResult); }
.bg-system { background: var(--system); } .bg-other { background: var(--other); }
footer { border-top: 1px solid var(--line); margin-top: 16px; padding-top: 8px; padding-bottom: 16px; }
.hits { list-style: none; padding: 0; margin: 4px 0; max-height: 16em; overflow: auto; }
svg.chart-ledger { height: 160px; }
.fill-read { fill: var(--assistant); } .fill-write { fill: var(--toolResult); } .fill-input { fill: var(--other); }
.swatch.fill-read { background: var(--assistant); } .swatch.fill-write { background: var(--toolResult); } .swatch.fill-input { background: var(--other); }
svg .break-line { stroke: var(--focus); stroke-width: 2; vector-effect: non-scaling-stroke; }
svg .break-label { fill: var(--fg); font-size: 10px; text-anchor: middle; }
svg .modeled { fill: none; stroke: var(--fg); stroke-width: 1.5; stroke-dasharray: 4 3; vector-effect: non-scaling-stroke; }
.figure-note { font-style: italic; }
.cleared-note { margin: 0 0 4px; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
`;
