// POST /v1/contacts/send: queue a template send to contacts or a group (DESIGN.md §7).
import { type Static, Type } from '@sinclair/typebox';
import { BULK_SEND_RULES, BulkSendRequest } from './shared/bulk-send.js';
import { BULK_SEND_ERRORS } from './shared/error-sets.js';
import { IdempotencyKeyHeader } from './shared/idempotency-key-header.js';
import { BulkJobId } from './shared/ids.js';
import type { Operation } from './shared/operation.js';

export const BulkSendResponse = Type.Object(
  {
    ok: Type.Literal(true),
    jobId: BulkJobId,
    queued: Type.Integer({ minimum: 0, description: 'messages queued' }),
    idempotent: Type.Boolean({
      description: 'extension: true when this repeats an earlier bulk send with the same Idempotency-Key',
    }),
  },
  { additionalProperties: false },
);
export type BulkSendResponse = Static<typeof BulkSendResponse>;

export const sendToContacts = {
  method: 'POST',
  path: '/v1/contacts/send',
  sdk: 'contacts.send',
  summary: 'Queue a template send to contacts or a group',
  body: BulkSendRequest,
  bodyRules: BULK_SEND_RULES,
  headers: IdempotencyKeyHeader,
  response: BulkSendResponse,
  errors: [...BULK_SEND_ERRORS, 'idempotency_key_reused', 'monthly_quota_exceeded'],
  example: {
    body: {
      projectId: 'prj_01M81C1XJBK8H34T187GBDP8V9',
      environmentId: 'env_01M81C1XJB2NNCEJ58HV846MWZ',
      templateId: 'reminder',
      templateData: {
        subject: 'Your workshop starts tomorrow, {{contact.name}}',
        heading: 'See you tomorrow',
        intro: 'Your seat for {{contact.customFields.company}} is booked.',
      },
      groupSlug: 'beta-testers',
    },
    response: { ok: true, jobId: 'job_01M81C1XJB7Y4KHB01G4B1P0M5', queued: 1834, idempotent: false },
  },
} as const satisfies Operation;
