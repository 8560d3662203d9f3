// The gallery pages' one stylesheet, inlined in each page (the CSP allows no other).
export const GALLERY_STYLE = `
:root{color-scheme:light dark;--line:#8886;--soft:#8881;--accent:#2563eb;--bad:#b91c1c;--good:#15803d}
@media (prefers-color-scheme:dark){:root{--accent:#60a5fa;--bad:#fca5a5;--good:#86efac}}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
.wrap{max-width:1440px;margin:0 auto;padding:12px 20px 48px}
@media (max-width:600px){.wrap{padding:8px 12px 40px}}
a{color:var(--accent)}
nav.top{display:flex;flex-wrap:wrap;gap:4px 16px;font-size:14px;padding:4px 0 8px;border-bottom:1px solid var(--line);margin-bottom:12px}
h1{font-size:1.45rem;line-height:1.25;margin:.25rem 0 .35rem;overflow-wrap:anywhere}
h2{font-size:1.1rem;margin:0 0 .5rem}
h3{font-size:1rem;margin:1.25rem 0 .4rem}
code,pre,textarea{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
code{overflow-wrap:anywhere}
.muted{color:color-mix(in srgb,currentColor 68%,transparent)}
.badge{display:inline-block;padding:0 7px;border:1px solid var(--line);border-radius:999px;font-size:12px;line-height:20px;white-space:nowrap;text-decoration:none}
.badge.draft{border-style:dashed}
a.badge[aria-current]{background:var(--accent);border-color:var(--accent);color:#fff}
@media (prefers-color-scheme:dark){a.badge[aria-current]{color:#111827}}
input,select,button,textarea{font:inherit;color:inherit}
input[type=search],input[type=email],select{padding:6px 9px;border:1px solid var(--line);border-radius:6px;background:Canvas;max-width:100%}
button{padding:6px 12px;border:1px solid var(--line);border-radius:6px;background:var(--soft);cursor:pointer}
button.primary{background:var(--accent);border-color:var(--accent);color:#fff}
@media (prefers-color-scheme:dark){button.primary{color:#111827}}
button:disabled{opacity:.55;cursor:not-allowed}
form.search{display:flex;gap:8px;flex-wrap:wrap;margin:.75rem 0 .25rem}
form.search input{flex:1 1 16rem;max-width:32rem}
section.category{margin-top:1.5rem}
ul.templates{list-style:none;margin:0;padding:0}
ul.templates li{display:grid;grid-template-columns:minmax(10rem,14rem) 11rem minmax(13rem,19rem) minmax(0,1fr);gap:2px 16px;padding:7px 0;border-top:1px solid var(--line);align-items:baseline}
ul.templates .id{font-weight:600;overflow-wrap:anywhere}
ul.templates .versions{display:flex;gap:4px;flex-wrap:wrap}
@media (max-width:760px){ul.templates li{grid-template-columns:auto minmax(0,1fr);gap:2px 10px}
ul.templates li>:nth-child(n+3){grid-column:1/-1}}
.facts{display:flex;flex-wrap:wrap;gap:4px 20px;margin:.25rem 0 0;font-size:14px}
.facts div{display:flex;gap:6px;align-items:baseline;flex-wrap:wrap;min-width:0}
.facts dt{font-weight:600}
.facts dd{margin:0;min-width:0}
.layout{display:grid;gap:20px 28px;grid-template-columns:minmax(0,1fr);margin-top:16px}
.layout>section{min-width:0}
@media (min-width:1100px){.layout{grid-template-columns:minmax(320px,1fr) minmax(0,802px)}
.layout>.preview{grid-column:2;grid-row:1}.layout>.data{grid-column:1;grid-row:1}.layout>.fields{grid-column:1/-1;grid-row:2}}
.toolbar{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;margin:0 0 10px}
.toolbar fieldset{display:inline-flex;border:1px solid var(--line);border-radius:6px;padding:0;margin:0;overflow:hidden}
.toolbar legend{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
.toolbar fieldset label{display:inline-flex;align-items:center;gap:4px;padding:4px 10px;cursor:pointer;font-size:14px}
.toolbar fieldset label+label{border-left:1px solid var(--line)}
.toolbar fieldset label:has(input:checked){background:var(--soft);font-weight:600}
.toolbar .project{display:inline-flex;gap:6px;align-items:center;font-size:14px;min-width:0;max-width:100%}
.toolbar .project select{min-width:0;max-width:22rem}
@media (max-width:600px){.toolbar .project{flex:1 1 100%}.toolbar .project select{flex:1 1 auto;max-width:none}}
.envelope{margin:0 0 10px;font-size:14px;display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 10px}
.envelope dt{font-weight:600}
.envelope dd{margin:0;overflow-wrap:anywhere}
.frame-area{overflow-x:auto;max-width:100%}
iframe.frame{display:block;box-sizing:content-box;width:800px;height:760px;border:1px solid var(--line);border-radius:8px;background:#fff}
iframe.frame.dark{background:#111827}
iframe.frame.w375{width:375px}
iframe.frame.w800{width:800px}
@media (max-width:600px){iframe.frame{height:640px}}
pre.text{white-space:pre-wrap;overflow-wrap:anywhere;margin:0;padding:12px 14px;border:1px solid var(--line);border-radius:8px;max-width:800px}
textarea{display:block;width:100%;min-height:20rem;padding:10px;border:1px solid var(--line);border-radius:8px;background:Canvas;tab-size:2;resize:vertical}
textarea[aria-invalid=true]{border-color:var(--bad)}
.status{margin:.4rem 0;font-size:14px}
.status.bad,.errors{color:var(--bad)}
.status.good{color:var(--good)}
.errors{margin:.25rem 0;padding-left:1.2rem;font-size:14px}
.row{display:flex;flex-wrap:wrap;gap:8px;align-items:center}
.send label{display:flex;flex-direction:column;gap:2px;font-size:14px;flex:1 1 14rem;min-width:0}
.note{font-size:13px;margin:.4rem 0}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%;font-size:14px}
th,td{text-align:left;vertical-align:top;padding:6px 10px 6px 0;border-top:1px solid var(--line)}
th{font-weight:600;white-space:nowrap}
td.num{text-align:right;white-space:nowrap}
tr.nested td:first-child{padding-left:1.1rem}
tr.has-error td{background:color-mix(in srgb,var(--bad) 14%,transparent)}
td.default{min-width:12rem}
@media (max-width:640px){.fields table,.fields tbody,.fields tr,.fields td{display:block}
.fields thead{display:none}
.fields tr{display:flex;flex-wrap:wrap;gap:0 12px;padding:6px 0;border-top:1px solid var(--line)}
.fields td:first-child,.fields td.default,.fields td[data-label=Notes]{flex-basis:100%}
.fields tr.nested{padding-left:1.1rem}
.fields td{border:0;padding:0;min-width:0}
.fields tr.nested td:first-child{padding-left:0}
.fields td:empty{display:none}
.fields td.num{text-align:left}
.fields td[data-label]::before{content:attr(data-label) ": ";color:color-mix(in srgb,currentColor 68%,transparent)}}
details pre{white-space:pre-wrap;overflow-wrap:anywhere;padding:10px;border:1px solid var(--line);border-radius:8px;max-height:32rem;overflow:auto}
[hidden]{display:none!important}
`;
