// The dev inbox pages' style sheet (inbox-page.ts): light and dark, a narrow layout under 40rem.
export const INBOX_STYLE = `
:root { color-scheme: light dark; --line: #8885; --soft: #8881; --accent: #2563eb; --danger: #b91c1c; }
@media (prefers-color-scheme: dark) { :root { --accent: #93b4ff; --danger: #fca5a5; } }
* { box-sizing: border-box; }
body { margin: 0; font: 0.95rem/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; overflow-wrap: break-word; }
a { color: var(--accent); }
.bar { display: flex; gap: 1.25rem; align-items: center; padding: 0.6rem 1.5rem; border-bottom: 1px solid var(--line); }
.bar nav { display: flex; flex-wrap: wrap; gap: 0.4rem 1.25rem; }
.bar a { text-decoration: none; }
.bar a[aria-current] { font-weight: 600; color: inherit; }
main { padding: 1rem 1.5rem 3rem; max-width: 90rem; }
h1 { font-size: 1.35rem; margin: 0.25rem 0 0.75rem; }
h2 { font-size: 1.05rem; margin: 1.25rem 0 0.5rem; }
.head { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: baseline; }
.head h1 { margin-right: auto; }
.muted { opacity: 0.72; }
.live { font-size: 0.85rem; }
.live::before { content: "● "; color: #16a34a; }
.live.off::before { color: #d97706; }
button, .button { font: inherit; font-size: 0.9rem; padding: 0.3rem 0.75rem; border: 1px solid var(--line); border-radius: 0.35rem; background: var(--soft); color: inherit; cursor: pointer; text-decoration: none; display: inline-block; }
button.danger { color: var(--danger); border-color: color-mix(in srgb, var(--danger) 45%, transparent); }
button:hover, .button:hover { background: #8883; }
[hidden] { display: none !important; }
input, select { font: inherit; padding: 0.3rem 0.45rem; border: 1px solid var(--line); border-radius: 0.35rem; background: Canvas; color: CanvasText; min-width: 0; }
.filters { display: flex; flex-wrap: wrap; gap: 0.5rem 0.75rem; align-items: end; margin: 0 0 1rem; padding: 0.75rem; border: 1px solid var(--line); border-radius: 0.5rem; }
.filters label { display: grid; gap: 0.15rem; font-size: 0.85rem; flex: 1 1 12rem; }
.filters .go { display: flex; gap: 0.5rem; align-items: center; }
.chip { display: inline-flex; gap: 0.4rem; align-items: center; padding: 0.1rem 0.6rem; border: 1px solid var(--line); border-radius: 1rem; font-size: 0.85rem; margin: 0 0.5rem 0.75rem 0; }
.chip a { text-decoration: none; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: 0.45rem 0.6rem; border-bottom: 1px solid var(--line); }
th { font-weight: 600; }
.list thead th { font-size: 0.85rem; }
.list td.when { white-space: nowrap; font-variant-numeric: tabular-nums; }
.list td.subject a { font-weight: 600; }
.list td.actions { text-align: right; width: 1%; }
.list td.actions button { font-size: 0.8rem; padding: 0.15rem 0.55rem; white-space: nowrap; }
.list td.to { min-width: 12rem; }
.list td.tenant .project, .list td.tenant .tenant-name { display: block; }
.list td.tenant .id { display: block; max-width: 13rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.summary { margin: 0.6rem 0 0; font-size: 0.9rem; }
.vh { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
.list tr.fresh { animation: fresh 2s ease-out; }
@keyframes fresh { from { background: color-mix(in srgb, var(--accent) 18%, transparent); } }
.tag { display: inline-block; font-size: 0.78rem; padding: 0 0.45rem; border-radius: 0.3rem; background: var(--soft); border: 1px solid var(--line); white-space: nowrap; }
.id { font: 0.78rem ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.meta { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.25rem 1rem; margin: 0 0 1rem; }
.meta dt { font-weight: 600; }
.meta dd { margin: 0; }
.code { font: 700 1.1rem ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; letter-spacing: 0.08em; user-select: all; padding: 0 0.4rem; border: 1px dashed var(--line); border-radius: 0.3rem; margin-right: 0.4rem; }
.actions-row { display: flex; flex-wrap: wrap; gap: 0.5rem; margin: 0 0 1rem; }
.tabs { display: flex; gap: 0.25rem; border-bottom: 1px solid var(--line); overflow-x: auto; margin: 0 0 1rem; }
.tabs a { padding: 0.45rem 0.9rem; text-decoration: none; color: inherit; border: 1px solid transparent; border-bottom: 0; border-radius: 0.4rem 0.4rem 0 0; white-space: nowrap; }
.tabs a:hover { background: var(--soft); }
.panel { display: none; scroll-margin-top: 100vh; }
.panel:target, .panels:not(:has(.panel:target)) > .panel:first-child { display: block; }
body:not(:has(.panel:target)) .tabs a:first-child,
body:has(#text:target) .tabs a[href="#text"], body:has(#headers:target) .tabs a[href="#headers"],
body:has(#raw:target) .tabs a[href="#raw"], body:has(#checks:target) .tabs a[href="#checks"],
body:has(#html:target) .tabs a[href="#html"] { border-color: var(--line); background: Canvas; margin-bottom: -1px; font-weight: 600; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; padding: 0.75rem; border: 1px solid var(--line); border-radius: 0.4rem; font-size: 0.85rem; max-height: 75vh; overflow: auto; }
iframe { display: block; width: 100%; height: 75vh; min-height: 28rem; border: 1px solid var(--line); border-radius: 0.4rem; background: #fff; }
.headers th { white-space: nowrap; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.85rem; font-weight: 600; }
.headers td { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.85rem; word-break: break-all; }
.checks { display: grid; grid-template-columns: 12rem minmax(0, 1fr); gap: 0; margin: 0; }
.checks > dt, .checks > dd { padding: 0.6rem 0; border-bottom: 1px solid var(--line); margin: 0; }
.checks > dt { font-weight: 600; padding-right: 1rem; }
.checks ul, .checks ol { margin: 0.25rem 0 0; padding-left: 1.25rem; }
.badge { display: inline-block; font-size: 0.8rem; font-weight: 700; padding: 0 0.5rem; border-radius: 0.3rem; margin-right: 0.4rem; text-transform: uppercase; letter-spacing: 0.03em; }
.badge.pass { background: #dcfce7; color: #14532d; }
.badge.fail { background: #fee2e2; color: #7f1d1d; }
.badge.none { background: #fef3c7; color: #78350f; }
.badge.na { background: #e5e7eb; color: #1f2937; }
.notice { padding: 0.6rem 0.9rem; border: 1px solid var(--line); border-left: 4px solid #d97706; border-radius: 0.4rem; margin: 0 0 1rem; }
.notice p { margin: 0; }
.notice pre { margin: 0.5rem 0 0; max-height: none; }
summary { cursor: pointer; }
.hook { border: 1px solid var(--line); border-radius: 0.5rem; padding: 0.75rem 1rem; margin: 0 0 1rem; }
.hook h3 { font-size: 1rem; margin: 0 0 0.5rem; }
.hook details { margin-top: 0.6rem; }
.hook.fresh { animation: fresh 2s ease-out; }
.catch-url { font: 0.95rem ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; user-select: all; overflow-wrap: anywhere; }
@media (max-width: 40rem) {
  .bar, main { padding-left: 1rem; padding-right: 1rem; }
  .list thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  .list, .list tbody { display: block; }
  .list tr { display: grid; grid-template-columns: minmax(0, 1fr) auto; grid-template-areas: "subject del" "to del" "when del" "tenant del"; gap: 0.1rem 0.75rem; padding: 0.6rem 0; border-bottom: 1px solid var(--line); }
  .list td { display: block; padding: 0; border: 0; }
  .list td.subject { grid-area: subject; }
  .list td.to { grid-area: to; }
  .list td.when { grid-area: when; font-size: 0.85rem; }
  .list td.tenant { grid-area: tenant; font-size: 0.85rem; }
  .list td.tenant .id { display: none; }
  .list td.tenant .project, .list td.tenant .tenant-name { display: inline; }
  .list td.tenant .project + .tenant-name::before { content: " · "; opacity: 0.72; }
  .list td.to { min-width: 0; }
  .list td.actions { grid-area: del; align-self: center; width: auto; }
  .meta { gap: 0.2rem 0.75rem; }
  .tabs { gap: 0; }
  .tabs a { flex: 1 1 auto; text-align: center; padding: 0.45rem 0.4rem; }
  .headers tr { display: block; padding: 0.4rem 0; border-bottom: 1px solid var(--line); }
  .headers th, .headers td { display: block; padding: 0; border: 0; }
  .headers th { white-space: normal; }
  .checks { grid-template-columns: minmax(0, 1fr); }
  .checks > dt { border-bottom: 0; padding-bottom: 0; }
  iframe { height: 70vh; }
}
`;
