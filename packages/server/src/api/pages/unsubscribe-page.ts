// The pages of GET/POST /u/:token. Every value is escaped. The form posts the RFC 8058 body to the
// page's own path (a relative action, so the token is never written into the page); `?via=page`
// only tells the audit trail where the click came from.
import { escapeHtml } from '@mailsvc/templates';
import { htmlDocument } from './html-document.js';

export interface UnsubscribePageView {
  emailMasked: string;
  projectName: string;
}

const STYLE = `
:root { color-scheme: light dark; --fg: #1a1a1a; --muted: #4a4a4a; --bg: #f6f6f4; --card: #ffffff; --accent: #1d4ed8; --accent-fg: #ffffff; }
@media (prefers-color-scheme: dark) { :root { --fg: #f2f2f2; --muted: #c8c8c8; --bg: #161616; --card: #232323; --accent: #93b4ff; --accent-fg: #0d0d0d; } }
* { box-sizing: border-box; }
body { margin: 0; padding: 2rem 1rem; background: var(--bg); color: var(--fg); font: 1rem/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 32rem; margin: 0 auto; padding: 2rem; background: var(--card); border-radius: 0.75rem; }
h1 { margin: 0 0 1rem; font-size: 1.5rem; line-height: 1.25; }
p { margin: 0 0 1rem; }
.note { color: var(--muted); font-size: 0.95rem; }
button { font: inherit; font-weight: 600; padding: 0.75rem 1.25rem; border: 0; border-radius: 0.5rem; background: var(--accent); color: var(--accent-fg); cursor: pointer; }
button:focus-visible { outline: 3px solid var(--fg); outline-offset: 2px; }
`;

function page(title: string, body: string): string {
  return htmlDocument({ title, style: STYLE, body: `<main>\n${body}\n</main>` });
}

function scopeLine(v: UnsubscribePageView): string {
  return `<p class="note">This covers notification emails from ${escapeHtml(v.projectName)}. Security and account emails (such as sign-in codes and password resets) are not affected.</p>`;
}

/** GET: asks for confirmation; the button POSTs the RFC 8058 body to this same URL. */
export function renderUnsubscribeConfirmPage(v: UnsubscribePageView): string {
  return page(
    `Unsubscribe from ${v.projectName}`,
    `<h1>Unsubscribe from ${escapeHtml(v.projectName)}?</h1>
<p>Stop sending notification emails from ${escapeHtml(v.projectName)} to <strong>${escapeHtml(v.emailMasked)}</strong>.</p>
${scopeLine(v)}
<form method="post" action="?via=page">
<button type="submit" name="List-Unsubscribe" value="One-Click">Unsubscribe</button>
</form>`,
  );
}

/** After a POST, and for a GET when the address is already unsubscribed. */
export function renderUnsubscribedPage(v: UnsubscribePageView): string {
  return page(
    'You are unsubscribed',
    `<h1 role="status">You are unsubscribed</h1>
<p><strong>${escapeHtml(v.emailMasked)}</strong> will no longer receive notification emails from ${escapeHtml(v.projectName)}.</p>
${scopeLine(v)}`,
  );
}

export function renderInvalidLinkPage(): string {
  return page(
    'This unsubscribe link is not valid',
    `<h1>This unsubscribe link is not valid</h1>
<p>The link may be incomplete or out of date. Use the unsubscribe link in a recent email, or contact the sender.</p>`,
  );
}

/** For requests the page cannot take (wrong content type, oversized body). */
export function renderRequestErrorPage(message: string): string {
  return page('Request not accepted', `<h1>Request not accepted</h1>\n<p>${escapeHtml(message)}</p>`);
}
