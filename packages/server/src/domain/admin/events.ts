// Operators' commands for the relay event intakes (DESIGN.md §5): an environment's Standard
// Webhooks secret for POST /v1/events/intake, and the SNS topics whose SES notifications
// POST /v1/events/ses accepts for it. Each change is audited in the command's transaction.
import { randomBytes } from 'node:crypto';
import { type Static, Type } from '@sinclair/typebox';
import { auditedChange } from '../../db/repositories/audit.js';
import {
  deleteSesTopic,
  expireIntakeSecret,
  insertIntakeSecret,
  insertSesTopic,
  listIntakeSecrets,
  listSesTopics,
} from '../../db/repositories/event-intake.js';
import { ApiError } from '../../errors.js';
import { newId } from '../../ids.js';
import { IdOf, Strict } from './schemas.js';
import { type AdminDeps, requireEnvironment } from './scope.js';

/** How long a replaced secret keeps verifying, so a relay can be switched over without loss. */
export const SECRET_ROTATION_GRACE_MS = 24 * 3_600_000;

const endpoints = (deps: AdminDeps) => ({
  intakeUrl: `${deps.config.MAILSVC_PUBLIC_URL}/v1/events/intake`,
  sesUrl: `${deps.config.MAILSVC_PUBLIC_URL}/v1/events/ses`,
});

export const CreateIntakeSecretInput = Strict({ environment: IdOf('env') });
export async function createIntakeSecret(
  deps: AdminDeps,
  input: Static<typeof CreateIntakeSecretInput>,
  actor: string,
) {
  const env = await requireEnvironment(deps.db, input.environment);
  const now = deps.clock.now();
  const id = newId('whs', now.getTime());
  // Standard Webhooks secrets: whsec_ and base64 of 24 to 64 random bytes.
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const graceUntil = new Date(now.getTime() + SECRET_ROTATION_GRACE_MS);
  const retired = await auditedChange(
    deps.db,
    now,
    (trx) =>
      insertIntakeSecret(trx, {
        id,
        environmentId: env.id,
        tenantId: env.tenant_id,
        secret,
        now,
        graceUntil,
      }),
    (retired) => ({
      tenantId: env.tenant_id,
      actor,
      action: 'events.create-secret',
      targetType: 'environment',
      targetId: env.id,
      details: { secretId: id, retiredSecrets: retired },
    }),
  );
  return {
    secret: {
      id,
      environmentId: env.id,
      secret,
      intakeUrl: endpoints(deps).intakeUrl,
      ...(retired > 0 && { previousSecretsValidUntil: graceUntil.toISOString() }),
    },
  };
}

const TOPIC_ARN = '^arn:aws[a-z-]*:sns:[a-z0-9-]{4,32}:[0-9]{12}:[A-Za-z0-9_-]{1,256}(\\.fifo)?$';

export const AddSesTopicInput = Strict({
  environment: IdOf('env'),
  topicArn: Type.String({
    pattern: TOPIC_ARN,
    maxLength: 320,
    description:
      'the SNS topic your SES configuration set or identity notifies, arn:aws:sns:REGION:ACCOUNT:NAME',
  }),
});
export async function addSesTopic(deps: AdminDeps, input: Static<typeof AddSesTopicInput>, actor: string) {
  const env = await requireEnvironment(deps.db, input.environment);
  const now = deps.clock.now();
  const added = await auditedChange(
    deps.db,
    now,
    (trx) =>
      insertSesTopic(trx, { topicArn: input.topicArn, environmentId: env.id, tenantId: env.tenant_id, now }),
    (added) =>
      added
        ? {
            tenantId: env.tenant_id,
            actor,
            action: 'events.add-ses-topic',
            targetType: 'environment',
            targetId: env.id,
            details: { topicArn: input.topicArn },
          }
        : null,
  );
  if (!added) throw new ApiError('conflict', `The SNS topic ${input.topicArn} is already registered.`);
  return { topic: { topicArn: input.topicArn, environmentId: env.id, sesUrl: endpoints(deps).sesUrl } };
}

export const ShowEventsInput = Strict({ environment: IdOf('env') });
export async function showEvents(deps: AdminDeps, input: Static<typeof ShowEventsInput>) {
  const env = await requireEnvironment(deps.db, input.environment);
  const secrets = await listIntakeSecrets(deps.db, env.id);
  const topics = await listSesTopics(deps.db, env.id);
  return {
    events: {
      environmentId: env.id,
      ...endpoints(deps),
      secrets: secrets.map((s) => ({
        id: s.id,
        createdAt: s.createdAt.toISOString(),
        expiresAt: s.expiresAt?.toISOString() ?? null,
      })),
      sesTopics: topics.map((t) => ({ topicArn: t.topicArn, createdAt: t.createdAt.toISOString() })),
    },
  };
}

export const RevokeIntakeSecretInput = Strict({ id: IdOf('whs') });
export async function revokeIntakeSecret(
  deps: AdminDeps,
  input: Static<typeof RevokeIntakeSecretInput>,
  actor: string,
) {
  const now = deps.clock.now();
  const row = await auditedChange(
    deps.db,
    now,
    (trx) => expireIntakeSecret(trx, input.id, now),
    (row) =>
      row
        ? {
            tenantId: row.tenantId,
            actor,
            action: 'events.revoke-secret',
            targetType: 'environment',
            targetId: row.environmentId,
            details: { secretId: input.id },
          }
        : null,
  );
  if (!row) throw new ApiError('not_found', `No intake secret ${input.id}.`);
  return {
    secret: {
      id: input.id,
      environmentId: row.environmentId,
      expiresAt: (row.expiresAt ?? now).toISOString(),
    },
  };
}

export const RemoveSesTopicInput = Strict({ topicArn: AddSesTopicInput.properties.topicArn });
export async function removeSesTopic(
  deps: AdminDeps,
  input: Static<typeof RemoveSesTopicInput>,
  actor: string,
) {
  const now = deps.clock.now();
  const row = await auditedChange(
    deps.db,
    now,
    (trx) => deleteSesTopic(trx, input.topicArn),
    (row) =>
      row
        ? {
            tenantId: row.tenantId,
            actor,
            action: 'events.remove-ses-topic',
            targetType: 'environment',
            targetId: row.environmentId,
            details: { topicArn: input.topicArn },
          }
        : null,
  );
  if (!row) throw new ApiError('not_found', `The SNS topic ${input.topicArn} is not registered.`);
  return { topic: { topicArn: input.topicArn, environmentId: row.environmentId, removed: true } };
}
