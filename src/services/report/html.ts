/**
 * What the work report's parts share: escaping (every text of a result or a work goes through {@link esc}), number
 * formats, and the page's style — the memorization report's look (src/services/memorization/report.ts), with print
 * rules so that printing the page gives a readable PDF: passages are never split across pages and the coverage
 * strips keep their colours.
 */
export { esc } from '../memorization/report.js';

/** An integer with thousands separators; '—' for a missing number. */
export const num = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '—');
/** A share 0..1 as a percentage with one decimal. */
export const pct = (n: number): string => (Number.isFinite(n) ? `${(n * 100).toFixed(1)} %` : '—');
/** A number with `d` decimals. */
export const fix = (n: number, d: number): string => (Number.isFinite(n) ? n.toFixed(d) : '—');

/** The page's style: screen, then print. */
export const REPORT_CSS = `
:root{--ink:#1d2433;--muted:#5b6478;--line:#d9dde6;--bg:#fbfbfd;--mark:#c2410c;--bar:#e7eaf2;--accent:#2f5bd3}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:1080px;margin:0 auto;padding:28px 24px 48px}
h1{margin:0 0 4px;font-size:26px}
h2{margin:28px 0 10px;font-size:19px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:16px;margin:18px 0 6px}
.sub{margin:0 0 12px;color:var(--muted)}
code{font:13px ui-monospace,SFMono-Regular,Menlo,monospace;background:#eef0f5;padding:1px 4px;border-radius:3px}
code{word-break:break-all}td:first-child code{white-space:nowrap;word-break:normal}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:0;font-size:14px}
dl.meta dt{color:var(--muted)}dl.meta dd{margin:0}
table{border-collapse:collapse;width:100%;font-size:13.5px;margin:8px 0}
th,td{border:1px solid var(--line);padding:5px 8px;text-align:left;vertical-align:top}th{background:#f0f2f7}
td.n{text-align:right;font-variant-numeric:tabular-nums}td.src{color:var(--muted);font-size:12px}
figure{margin:10px 0}figcaption{font-weight:600;font-size:13.5px;margin-bottom:4px}
figure.strip svg{display:block;width:100%;height:auto}
svg .bar{fill:var(--bar)}svg .mark{fill:var(--mark)}svg.model .mark{fill:var(--accent)}svg.extraction .mark{fill:var(--accent)}svg.extraction .short{opacity:.45}
svg .edge{stroke:#8a93a6;stroke-width:1}svg .sec{font-size:10px;fill:var(--muted)}
figure.passage{padding:10px 12px;border:1px solid var(--line);border-radius:6px;background:#fff}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:12px}
.side{white-space:pre-wrap;font-size:14px;max-height:360px;overflow:auto}
.side .lbl{display:block;font-size:11px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
.side .lbl{margin-bottom:4px}.side .ctx{color:var(--muted)}mark{background:#ffe066;padding:0 1px}
.counts{color:var(--muted);font-size:12.5px;margin-top:6px}.note,.method{color:var(--muted);font-size:13px}
ul.cite{margin:0;padding-left:18px;font-size:12px}
footer{margin-top:32px;color:var(--muted);font-size:12px}
@media print{
@page{margin:16mm 14mm}
body{background:#fff;font-size:11pt}main{max-width:none;padding:0}
*{-webkit-print-color-adjust:exact;print-color-adjust:exact}
h2,h3{break-after:avoid}figure,tr{break-inside:avoid}
.side{max-height:none;overflow:visible}
}
`;
