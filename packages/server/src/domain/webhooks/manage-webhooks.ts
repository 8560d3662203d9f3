// POST /v1/webhooks/create, list, get, update, delete, rotate-secret (DESIGN.md §11): an
// environment's endpoints, each change audited in its own transaction. At most 20 endpoints per
// environment (counted under a lock of the environment's row, so two creates cannot both pass).
import {
  type CreateWebhookRequest,
  type CreateWebhookResponse,
  type UpdateWebhookRequest,
  WEBHOOK_ENDPOINTS_MAX,
  WEBHOOK_SECRET_GRACE_HOURS,
  type WebhookEndpoint,
} from '@mailsvc/contract/api';
import {
  countEndpointsLocked,
  deleteEndpoint,
  insertEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  updateEndpoint,
} from '../../db/repositories/webhook-endpoints.js';
import { inTransaction } from '../../db/transaction.js';
import { ApiError } from '../../errors.js';
import { newId } from '../../ids.js';
import { newWebhookSecret } from '../../webhooks/signing.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { Deps } from '../deps.js';
import {
  auditEndpoint,
  auditedUrl,
  checkEndpointUrl,
  findOwnEndpoint,
  toWebhookEndpoint,
} from './webhook-endpoint.js';

export async function createWebhook(
  deps: Deps,
  auth: AuthContext,
  input: CreateWebhookRequest,
): Promise<Omit<CreateWebhookResponse, 'ok'>> {
  const url = await checkEndpointUrl(deps, input.url);
  const now = deps.clock.now();
  const secret = newWebhookSecret();
  const row = await inTransaction(deps.db, async (trx) => {
    if ((await countEndpointsLocked(trx, auth.environmentId)) >= WEBHOOK_ENDPOINTS_MAX)
      throw new ApiError(
        'webhook_endpoint_limit',
        `This environment has ${WEBHOOK_ENDPOINTS_MAX} webhook endpoints, the most it may have: delete one first.`,
      );
    const created = await insertEndpoint(
      trx,
      {
        id: newId('whe', now.getTime()),
        tenantId: auth.tenantId,
        environmentId: auth.environmentId,
        url,
        description: input.description ?? null,
        eventTypes: input.events ?? null,
        enabled: input.enabled ?? true,
        secret,
        rateLimitPerSecond: input.rateLimitPerSecond ?? null,
      },
      now,
    );
    await auditEndpoint(
      trx,
      auth,
      'webhook_endpoint.created',
      created.id,
      { url: auditedUrl(url), events: input.events ?? null },
      now,
    );
    return created;
  });
  return { endpoint: toWebhookEndpoint(row), secret };
}

export async function listWebhooks(deps: Deps, auth: AuthContext): Promise<{ endpoints: WebhookEndpoint[] }> {
  return { endpoints: (await listEndpoints(deps.db, auth.environmentId)).map(toWebhookEndpoint) };
}

export async function getWebhook(
  deps: Deps,
  auth: AuthContext,
  endpointId: string,
): Promise<{ endpoint: WebhookEndpoint }> {
  return { endpoint: toWebhookEndpoint(await findOwnEndpoint(deps.db, auth, endpointId)) };
}

export async function updateWebhook(
  deps: Deps,
  auth: AuthContext,
  input: UpdateWebhookRequest,
): Promise<{ endpoint: WebhookEndpoint }> {
  const url = input.url === undefined ? undefined : await checkEndpointUrl(deps, input.url);
  const now = deps.clock.now();
  const row = await inTransaction(deps.db, async (trx) => {
    const before = await findOwnEndpoint(trx, auth, input.endpointId, 'no key update');
    const after = await updateEndpoint(
      trx,
      auth.environmentId,
      before.id,
      {
        url,
        description: input.description,
        eventTypes: input.events,
        enabled: input.enabled,
        rateLimitPerSecond: input.rateLimitPerSecond,
      },
      now,
    );
    await auditEndpoint(
      trx,
      auth,
      'webhook_endpoint.updated',
      before.id,
      {
        ...(url !== undefined && { url: auditedUrl(url) }),
        ...(input.events !== undefined && { events: input.events }),
        ...(input.rateLimitPerSecond !== undefined && { rateLimitPerSecond: input.rateLimitPerSecond }),
        ...(input.enabled !== undefined && {
          enabled: input.enabled,
          wasDisabledFor: before.disabled_reason,
        }),
      },
      now,
    );
    return after!;
  });
  return { endpoint: toWebhookEndpoint(row) };
}

export async function deleteWebhook(deps: Deps, auth: AuthContext, endpointId: string): Promise<void> {
  const now = deps.clock.now();
  await inTransaction(deps.db, async (trx) => {
    const row = await findOwnEndpoint(trx, auth, endpointId, 'update');
    await deleteEndpoint(trx, auth.environmentId, row.id);
    await auditEndpoint(trx, auth, 'webhook_endpoint.deleted', row.id, { url: auditedUrl(row.url) }, now);
  });
}

export async function rotateWebhookSecret(
  deps: Deps,
  auth: AuthContext,
  endpointId: string,
): Promise<{ secret: string; previousSecretExpiresAt: string }> {
  const now = deps.clock.now();
  const secret = newWebhookSecret();
  const graceUntil = new Date(now.getTime() + WEBHOOK_SECRET_GRACE_HOURS * 3_600_000);
  await inTransaction(deps.db, async (trx) => {
    const row = await findOwnEndpoint(trx, auth, endpointId, 'no key update');
    await rotateEndpointSecret(trx, auth.environmentId, row.id, secret, graceUntil, now);
    await auditEndpoint(
      trx,
      auth,
      'webhook_endpoint.secret_rotated',
      row.id,
      { previousSecretExpiresAt: graceUntil.toISOString() },
      now,
    );
  });
  return { secret, previousSecretExpiresAt: graceUntil.toISOString() };
}
