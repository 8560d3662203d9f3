// POST /v1/contacts/send/dry-run: count who a contacts send would reach, without queueing (DESIGN.md §7).
import { type Static, Type } from '@sinclair/typebox';
import { BULK_SEND_RULES, BulkSendRequest, SkipCounts } from './shared/bulk-send.js';
import { BULK_SEND_ERRORS } from './shared/error-sets.js';
import type { Operation } from './shared/operation.js';

export const BulkSendPreviewResponse = Type.Object(
  {
    ok: Type.Literal(true),
    eligible: Type.Integer({ minimum: 0 }),
    skipped: SkipCounts,
  },
  { additionalProperties: false },
);
export type BulkSendPreviewResponse = Static<typeof BulkSendPreviewResponse>;

export const previewSendToContacts = {
  method: 'POST',
  path: '/v1/contacts/send/dry-run',
  sdk: 'contacts.sendDryRun',
  summary: 'Count who a contacts send would reach, without queueing',
  body: BulkSendRequest,
  bodyRules: BULK_SEND_RULES,
  response: BulkSendPreviewResponse,
  errors: BULK_SEND_ERRORS,
  example: {
    body: {
      templateId: 'account-locked',
      to: ['jane@example.com', 'ct_01M81C1XJB7Y4KHB01G4B1P0M5'],
      data: {},
    },
    response: {
      ok: true,
      eligible: 1,
      skipped: { unsubscribed: 0, complained: 0, suppressed: 0, duplicate: 0, not_found: 1 },
    },
  },
} as const satisfies Operation;
