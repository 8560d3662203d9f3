// What the webhook operations share: an endpoint as the API shows it (never its secret), the
// URL check with the operator's switch, the 404, and the audit event of a change.
import type { WebhookEndpoint } from '@mailsvc/contract/api';
import { findEndpoint, type WebhookEndpointRow } from '../../db/repositories/webhook-endpoints.js';
import type { Db } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { checkWebhookTarget } from '../../webhooks/egress.js';
import { auditKeyAction } from '../audit/audit-key-action.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';

export function toWebhookEndpoint(r: WebhookEndpointRow): WebhookEndpoint {
  return {
    endpointId: r.id,
    url: r.url,
    events: (r.event_types as WebhookEndpoint['events']) ?? null,
    description: r.description,
    enabled: r.enabled,
    rateLimitPerSecond: r.rate_limit_per_second,
    disabledReason: (r.disabled_reason as WebhookEndpoint['disabledReason']) ?? null,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

/** 400 webhook_url_not_allowed unless events may go to `url` (egress-address.ts, egress.ts). */
export async function checkEndpointUrl(deps: Deps, url: string): Promise<string> {
  const allow = deps.config.MAILSVC_WEBHOOK_ALLOW_PRIVATE;
  const checked = await checkWebhookTarget(url, { allowHttp: allow, allowPrivate: allow });
  if (!checked.ok)
    throw new ApiError('webhook_url_not_allowed', `Events cannot be sent to this URL: ${checked.reason}.`, [
      { path: '/url', message: checked.reason },
    ]);
  return checked.url.href;
}

export async function findOwnEndpoint(
  db: Db,
  auth: AuthContext,
  endpointId: string,
  lock?: 'update' | 'no key update',
): Promise<WebhookEndpointRow> {
  const row = await findEndpoint(db, auth.environmentId, endpointId, lock);
  if (!row)
    throw new ApiError(
      'webhook_endpoint_not_found',
      `No webhook endpoint ${endpointId} in this environment.`,
      [{ path: '/endpointId', message: 'not found' }],
    );
  return row;
}

/** The URL as the audit log keeps it: no query string (it may hold a receiver's token). */
export const auditedUrl = (url: string) => url.replace(/[?#].*$/s, '');

export function auditEndpoint(
  trx: Db,
  auth: AuthContext,
  action: string,
  endpointId: string,
  details: Record<string, unknown>,
  now: Date,
): Promise<void> {
  return auditKeyAction(trx, auth, action, { type: 'webhook_endpoint', id: endpointId }, details, now);
}
