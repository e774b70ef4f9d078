/**
 * The ops page's only style and script, served from the service (no build step, no
 * third-party origin; the page's Content-Security-Policy allows nothing else).
 */
export const OPS_CSS = `
:root { --fg:#1d232a; --muted:#5c6670; --line:#d9dee3; --bg:#f6f7f9; --accent:#1f5fbf;
  --ok:#1b7f3b; --bad:#b42318; --warn:#b25e09; --info:#5b4bb7; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color:var(--fg); background:var(--bg); }
nav { display:flex; gap:1.2rem; align-items:center; padding:.7rem 1.5rem; background:#fff; border-bottom:1px solid var(--line); }
nav a { color:var(--fg); text-decoration:none; padding:.2rem 0; }
nav a[aria-current=page] { border-bottom:2px solid var(--accent); font-weight:600; }
nav .brand { margin-right:1rem; }
nav .who { margin-left:auto; color:var(--muted); }
main { padding:1.2rem 1.5rem 2rem; max-width:1400px; }
h1 { font-size:1.35rem; margin:.2rem 0 1rem; }
h2 { font-size:1.05rem; margin:1.6rem 0 .6rem; }
a { color:var(--accent); }
table { border-collapse:collapse; width:100%; background:#fff; border:1px solid var(--line); }
th, td { text-align:left; padding:.45rem .6rem; border-bottom:1px solid var(--line); vertical-align:top; }
th { background:#eef1f4; font-weight:600; white-space:nowrap; }
td.num, th.num { text-align:right; font-variant-numeric:tabular-nums; }
td.nowrap, .nowrap { white-space:nowrap; }
.small { font-size:.8rem; }
.cards { display:flex; flex-wrap:wrap; gap:.8rem; margin-bottom:1rem; }
.card { background:#fff; border:1px solid var(--line); border-radius:6px; padding:.7rem 1rem; min-width:150px; }
.card .n { font-size:1.6rem; font-weight:600; }
.card .l { color:var(--muted); }
.board { display:grid; grid-template-columns:repeat(auto-fill, minmax(170px, 1fr)); gap:.8rem; }
.board .column { background:#fff; border:1px solid var(--line); border-radius:6px; padding:.6rem .8rem; }
.board .column h3 { margin:.2rem 0 .4rem; font-size:1rem; display:flex; justify-content:space-between; }
.board .column .n { font-size:1.4rem; font-weight:600; }
h3 .stage { color:#3730a3; font-weight:normal; }
.tabs.floor { margin-top:-.4rem; }
.card.alert { border-color:var(--bad); }
.card.alert .n { color:var(--bad); }
.badge { display:inline-block; padding:.05rem .45rem; border-radius:999px; font-size:.8rem; background:#e7ebef; }
.badge.ready { background:#dcf2e3; color:var(--ok); }
.badge.failed, .badge.overdue { background:#fde4e1; color:var(--bad); }
.badge.rendering { background:#e7e4fb; color:var(--info); }
.badge.received { background:#fdf0dc; color:var(--warn); }
.badge.cancelled { background:#e7ebef; color:var(--muted); text-decoration:line-through; }
.tabs { display:flex; gap:.3rem; margin-bottom:.8rem; flex-wrap:wrap; }
.tabs a { padding:.3rem .8rem; border:1px solid var(--line); border-radius:999px; background:#fff; text-decoration:none; color:var(--fg); }
.tabs a[aria-current=page] { background:var(--accent); color:#fff; border-color:var(--accent); }
form.filters { display:flex; flex-wrap:wrap; gap:.6rem; align-items:end; margin-bottom:1rem; }
form.filters label { display:flex; flex-direction:column; font-size:.8rem; color:var(--muted); }
input, select, button { font:inherit; padding:.3rem .5rem; border:1px solid var(--line); border-radius:4px; background:#fff; }
button { cursor:pointer; background:var(--accent); color:#fff; border-color:var(--accent); }
button.danger { background:var(--bad); border-color:var(--bad); }
button.link { background:none; border:none; color:var(--accent); padding:0; }
form.inline, form.action { display:inline-flex; gap:.4rem; align-items:center; margin:0 .4rem .4rem 0; }
.notice { padding:.6rem .9rem; border-radius:4px; background:#dcf2e3; border:1px solid #a9dcb9; }
.notice.error { background:#fde4e1; border-color:#f4b5ad; }
.muted, .stamp { color:var(--muted); }
.stamp { margin-top:1.5rem; font-size:.8rem; }
.error-text { color:var(--bad); }
.warn-text { color:var(--warn); }
.items { display:grid; gap:1rem; }
.item { background:#fff; border:1px solid var(--line); border-radius:6px; padding:.8rem 1rem; }
.previews { display:flex; gap:.8rem; flex-wrap:wrap; margin:.6rem 0; }
.previews img { max-width:280px; max-height:280px; border:1px solid var(--line); background:#fff; }
.mockups figure { margin:0; } .mockups figcaption { font-size:.8rem; color:var(--muted); }
ol.timeline { list-style:none; padding:0; margin:0; border-left:2px solid var(--line); }
ol.timeline li { position:relative; padding:.3rem 0 .6rem 1rem; }
ol.timeline li::before { content:""; position:absolute; left:-6px; top:.65rem; width:10px; height:10px; border-radius:50%; background:var(--accent); }
ol.timeline .type { font-weight:600; }
ol.timeline .meta { color:var(--muted); font-size:.85rem; }
dl.facts { display:grid; grid-template-columns:max-content 1fr; gap:.2rem 1rem; background:#fff; border:1px solid var(--line); padding:.8rem 1rem; border-radius:6px; }
dl.facts dt { color:var(--muted); }
dl.facts dd { margin:0; }
.login { max-width:420px; margin:4rem auto; background:#fff; border:1px solid var(--line); padding:1.5rem; border-radius:8px; }
.login input { width:100%; margin:.4rem 0 1rem; }
`;

/**
 * Progressive enhancement only: every page works without it. It refreshes `main` in
 * place (unless a form there is being used), and asks before a form marked data-confirm
 * is sent.
 */
export const OPS_JS = `
(function () {
  document.addEventListener('submit', function (e) {
    var f = e.target;
    if (f.dataset && f.dataset.confirm && !window.confirm(f.dataset.confirm)) e.preventDefault();
  });
  var main = document.getElementById('content');
  if (!main || !main.dataset.refresh) return;
  var every = Number(main.dataset.refresh) || 5000;
  var busy = function () {
    var a = document.activeElement;
    return a && a !== document.body && main.contains(a) && /INPUT|SELECT|TEXTAREA/.test(a.tagName);
  };
  setInterval(function () {
    if (document.hidden || busy()) return;
    fetch(location.href, { headers: { 'x-ops-refresh': '1' }, credentials: 'same-origin' })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (text) {
        if (!text || busy()) return;
        var next = new DOMParser().parseFromString(text, 'text/html').getElementById('content');
        if (next) main.innerHTML = next.innerHTML;
      })
      .catch(function () {});
  }, every);
})();
`;
