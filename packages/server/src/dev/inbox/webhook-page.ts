// The dev inbox's Webhooks page (/dev/inbox/webhooks): what the catcher received, newest first,
// each with its verdict, and how to point an endpoint at it. Every value taken from a request is
// escaped. Works without JavaScript; /dev/inbox/app.js adds live updates and the delete button.
import { escapeHtml } from '@mailsvc/templates';
import { NAV, page, time } from './inbox-page.js';
import { CATCHER_KEEP, type CatchVerification, type CaughtWebhook, readPayload } from './webhook-catcher.js';

export const CATCH_PATH = '/dev/inbox/webhooks/catch';

/** The command the notice names when the runner may not reach this machine. */
export const ALLOW_PRIVATE_COMMAND = 'MAILSVC_WEBHOOK_ALLOW_PRIVATE=true npm start';

export interface WebhooksPageView {
  /** Newest first. */
  caught: CaughtWebhook[];
  /** This server's API as the runner reaches it: http://127.0.0.1:<port>. */
  baseUrl: string;
  /** MAILSVC_WEBHOOK_ALLOW_PRIVATE. */
  isPrivateAllowed: boolean;
}

const BADGES: Record<CatchVerification['result'], [kind: string, label: string]> = {
  verified: ['pass', 'verified'],
  failed: ['fail', 'not verified'],
  no_endpoint: ['none', 'not verified'],
  not_checked: ['na', 'not checked'],
};

function verdict(v: CatchVerification): string {
  const [kind, label] = BADGES[v.result];
  // The badge says the verdict; the reason, a sentence of its own in the API, goes on after it.
  const detail = v.reason.replace(/^(?:not verified|verified|not checked):? /, '');
  return `<span class="badge ${kind}">${label}</span> ${escapeHtml(detail)}`;
}

function caughtItem(c: CaughtWebhook): string {
  const read = readPayload(c.body);
  const type = read?.type ?? null;
  const webhookId = c.headers['webhook-id'];
  const body = read
    ? `<pre>${escapeHtml(JSON.stringify(read.payload, null, 2))}</pre>`
    : `<p class="muted">The body is not JSON; as received:</p><pre>${escapeHtml(c.body) || '<span class="muted">(empty)</span>'}</pre>`;
  const headers = Object.entries(c.headers)
    .map(([name, value]) => `<tr><th scope="row">${escapeHtml(name)}</th><td>${escapeHtml(value)}</td></tr>`)
    .join('\n');
  return `<article class="hook" data-id="${c.id}" aria-labelledby="hook-${c.id}">
<h3 id="hook-${c.id}">${type ? `<code>${escapeHtml(type)}</code>` : '<span class="muted">(no type)</span>'}</h3>
<dl class="meta">
<dt>Received</dt><dd>${time(c.receivedAt)}</dd>
<dt>webhook-id</dt><dd>${webhookId ? `<span class="id">${escapeHtml(webhookId)}</span>` : '<span class="muted">none</span>'}</dd>
<dt>Signature</dt><dd>${verdict(c.verification)}</dd>
</dl>
${body}
<details><summary>Headers (${Object.keys(c.headers).length})</summary>
<table class="headers"><tbody>
${headers}
</tbody></table>
</details>
</article>`;
}

function catcherSection(v: WebhooksPageView): string {
  const url = `${v.baseUrl}${CATCH_PATH}`;
  const notice = v.isPrivateAllowed
    ? ''
    : `<div class="notice" id="not-reachable">
<p><strong>This server’s webhook runner cannot reach the catcher:</strong> MAILSVC_WEBHOOK_ALLOW_PRIVATE is false (the safe default), so webhooks go only to https URLs on public addresses, and creating an endpoint with this URL is refused with 400 webhook_url_not_allowed. To try webhooks on this machine, stop the server and start it with:</p>
<pre>${escapeHtml(ALLOW_PRIVATE_COMMAND)}</pre>
</div>`;
  const curl = (path: string, body: string) =>
    `curl -s ${v.baseUrl}${path} -H "Authorization: Bearer $MAILSVC_KEY" \\\n  -H 'Content-Type: application/json' -d '${body}'`;
  return `${notice}
<section aria-labelledby="catcher-h">
<h2 id="catcher-h">Catcher URL</h2>
<p><code class="catch-url">${escapeHtml(url)}</code></p>
<details${v.isPrivateAllowed ? '' : ' open'}><summary>Register it as an environment’s endpoint, then send a test event</summary>
<pre>${escapeHtml(`${curl('/v1/webhooks/create', `{"url": "${url}"}`)}\n${curl('/v1/webhooks/test', '{"endpointId": "whe_…"}')}`)}</pre>
<p class="muted">With the full-scope key of that environment (mailsvc start prints the demo one). Each request is verified with the secret of the endpoint of this database whose URL it was sent to. To forward an environment’s events to your own app instead: <code>mailsvc webhooks listen --forward-to http://localhost:PORT/path</code> (docs/webhooks.md).</p>
</details>
</section>`;
}

/** Newest first. Without JavaScript it refreshes itself every 5 seconds; with it, on each request. */
export function renderWebhooksPage(v: WebhooksPageView): string {
  const list =
    v.caught.length === 0
      ? '<p class="muted">No webhook received yet.</p>'
      : `${v.caught.map(caughtItem).join('\n')}
<p class="muted summary">Newest first; the newest ${CATCHER_KEEP} are kept, in memory, until the server stops.</p>`;
  return page(
    `Webhooks (${v.caught.length})`,
    `${NAV('webhooks')}
<main data-page="webhooks">
<div class="head">
<h1>Webhooks <span class="muted" id="count">(${v.caught.length})</span></h1>
<span class="live" id="live" role="status" hidden></span>
<button type="button" class="danger" data-delete-all="/dev/inbox/api/webhooks" data-confirm="Delete every received webhook?" hidden${v.caught.length === 0 ? ' disabled' : ''}>Delete all</button>
</div>
${catcherSection(v)}
<h2>Received</h2>
<div id="webhooks">
${list}
</div>
</main>`,
    '<noscript><meta http-equiv="refresh" content="5"></noscript>\n',
  );
}
