// A tiny History API router for paths under /console/.
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/console';
const NAV_EVENT = 'console:navigate';

export interface Location {
  /** The path under /console, starting with "/" ("/" for the overview). */
  path: string;
  search: URLSearchParams;
}

function read(): Location {
  let path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  if (path === '') path = '/';
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return { path, search: new URLSearchParams(location.search) };
}

/** Goes to `href` (a full path such as /console/emails?status=sent) without reloading. */
export function navigate(href: string, replace = false): void {
  if (replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  window.dispatchEvent(new Event(NAV_EVENT));
  if (!replace) window.scrollTo(0, 0);
}

export function useLocation(): Location {
  const [loc, setLoc] = useState(read);
  useEffect(() => {
    const update = () => setLoc(read());
    window.addEventListener('popstate', update);
    window.addEventListener(NAV_EVENT, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(NAV_EVENT, update);
    };
  }, []);
  return loc;
}

function isInternal(a: HTMLAnchorElement): boolean {
  if (a.origin !== location.origin || a.target || a.hasAttribute('download')) return false;
  const p = a.pathname;
  if (p !== BASE && !p.startsWith(`${BASE}/`)) return false;
  return !p.startsWith(`${BASE}/api/`) && !p.startsWith(`${BASE}/assets/`);
}

/** Turns clicks on plain <a href="/console/…"> links into client-side navigation. */
export function interceptLinks(): void {
  document.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const a = (event.target as Element | null)?.closest?.('a');
    if (!a?.href || !isInternal(a)) return;
    if (a.pathname === location.pathname && a.search === location.search && a.hash) return;
    event.preventDefault();
    navigate(a.pathname + a.search);
  });
}

/** `/console` + path + the query built from `params` (empty values left out). */
export function href(path: string, params: Record<string, string | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
  const s = q.toString();
  return `${BASE}${path}${s ? `?${s}` : ''}`;
}
