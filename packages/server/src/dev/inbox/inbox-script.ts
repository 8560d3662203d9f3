// The dev inbox's only script, served from the same origin at /dev/inbox/app.js (the pages allow
// `script-src 'self'` and nothing inline). It adds what a page cannot do without one: live
// updates over server-sent events, delete buttons (fetch with DELETE, refused cross-site by the
// server), local times and the current tab. Everything works, more plainly, without it. The
// Webhooks page (webhook-page.ts) is a list too: its region, its events and its delete URL.
// Only the list holds an event stream: a browser allows 6 connections per host, and a stream per
// open message tab would stall the 7th tab. A hidden list reloads once, when it is shown again.
export const INBOX_SCRIPT = `'use strict';
(() => {
  const main = document.querySelector('main');
  if (!main) return;
  const onWebhooks = main.dataset.page === 'webhooks';
  const onList = main.dataset.page === 'list' || onWebhooks;
  const messageId = main.dataset.id;
  const regionSel = onWebhooks ? '#webhooks' : '#messages';
  const itemSel = regionSel + ' [data-id]';

  const localTimes = (root) => {
    for (const t of root.querySelectorAll('time[datetime]')) {
      const d = new Date(t.getAttribute('datetime'));
      if (!Number.isNaN(d.getTime())) {
        t.title = t.textContent;
        t.textContent = d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
      }
    }
  };
  const showButtons = (root) => {
    for (const b of root.querySelectorAll('[data-delete], [data-delete-all]')) b.hidden = false;
  };
  localTimes(document);
  showButtons(document);

  // Tabs: the CSS shows the panel named by the URL's fragment; this marks the current tab.
  const tabs = document.querySelector('.tabs');
  const markTab = () => {
    if (!tabs) return;
    const links = [...tabs.querySelectorAll('a')];
    const current = links.find((a) => a.hash === location.hash) || links[0];
    for (const a of links) a.toggleAttribute('aria-current', a === current);
  };
  markTab();
  addEventListener('hashchange', markTab);

  const live = document.getElementById('live');
  const setLive = (text, ok) => {
    if (!live) return;
    live.hidden = false;
    live.textContent = text;
    live.classList.toggle('off', !ok);
  };

  let refreshing = null;
  let again = false;
  const refreshList = async () => {
    if (refreshing) { again = true; return; }
    refreshing = (async () => {
      const res = await fetch(location.href, { headers: { accept: 'text/html' }, cache: 'no-store' });
      if (!res.ok) return;
      const doc = new DOMParser().parseFromString(await res.text(), 'text/html');
      const known = new Set([...document.querySelectorAll(itemSel)].map((el) => el.dataset.id));
      for (const sel of [regionSel, '#count', '.filters']) {
        const next = doc.querySelector(sel);
        const here = document.querySelector(sel);
        if (!next || !here) continue;
        if (sel === '.filters' && here.contains(document.activeElement)) continue;
        here.replaceWith(next);
      }
      const all = document.querySelector('[data-delete-all]');
      const fresh = doc.querySelector('[data-delete-all]');
      if (all && fresh) all.disabled = fresh.disabled;
      document.title = doc.title;
      const region = document.querySelector(regionSel);
      for (const el of region.querySelectorAll('[data-id]')) if (!known.has(el.dataset.id)) el.classList.add('fresh');
      localTimes(region);
      showButtons(region);
    })();
    try { await refreshing; } catch { /* the next event retries */ }
    refreshing = null;
    if (again) { again = false; refreshList(); }
  };

  // A bulk send captures many messages in a burst: one reload for the burst, and none while the
  // tab is hidden (one when it is shown again).
  let timer = null;
  let stale = false;
  const scheduleRefresh = () => {
    if (document.visibilityState === 'hidden') { stale = true; return; }
    if (timer) return;
    timer = setTimeout(() => { timer = null; refreshList(); }, 250);
  };

  // A message page holds no event stream; it asks whether its message is still there when it is
  // shown again (another tab, or a test, may have deleted it).
  const checkGone = async () => {
    const gone = document.getElementById('gone');
    if (!gone || !messageId) return;
    try {
      const res = await fetch('/dev/inbox/' + encodeURIComponent(messageId) + '/raw', { method: 'HEAD', cache: 'no-store' });
      if (res.status === 404) gone.hidden = false;
    } catch { /* the server is away; the next look retries */ }
  };

  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState !== 'visible') return;
    if (!onList) checkGone();
    else if (stale) { stale = false; scheduleRefresh(); }
  });
  if (!onList) addEventListener('pageshow', (event) => { if (event.persisted) checkGone(); });

  const remove = async (url) => {
    const res = await fetch(url, { method: 'DELETE', headers: { accept: 'application/json' } });
    if (!res.ok) {
      const body = await res.json().catch(() => null);
      alert('Not deleted: ' + ((body && body.error && body.error.message) || res.status));
      return false;
    }
    return true;
  };

  document.addEventListener('click', async (event) => {
    const target = event.target instanceof Element ? event.target : null;
    const one = target && target.closest('[data-delete]');
    const all = target && target.closest('[data-delete-all]');
    if (one) {
      one.disabled = true;
      const ok = await remove('/dev/inbox/api/messages/' + encodeURIComponent(one.dataset.delete));
      if (ok && one.dataset.then) location.assign(one.dataset.then);
      else if (ok && onList) refreshList();
      else one.disabled = false;
    } else if (all) {
      if (!confirm(all.dataset.confirm || 'Delete every captured message?')) return;
      all.disabled = true;
      if (await remove(all.dataset.deleteAll || '/dev/inbox/api/messages')) refreshList();
      else all.disabled = false;
    }
  });

  if (!onList || !('EventSource' in window)) return;
  let events = null;
  const listen = () => {
    events = new EventSource('/dev/inbox/events');
    events.addEventListener('open', () => setLive('Live', true));
    events.addEventListener('error', () => setLive('Reconnecting…', false));
    for (const name of onWebhooks ? ['webhook', 'webhooks-deleted'] : ['captured', 'deleted'])
      events.addEventListener(name, scheduleRefresh);
  };
  listen();
  // Closed when the page is left; opened again (and the list reloaded) if it comes back from the
  // back-forward cache.
  addEventListener('pagehide', () => events.close());
  addEventListener('pageshow', (event) => { if (event.persisted) { listen(); scheduleRefresh(); } });
})();
`;
