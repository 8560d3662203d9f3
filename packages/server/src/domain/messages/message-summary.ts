// A message as the API shows it: metadata only, never subject, data or body (DESIGN.md §5).
import type { MessageSummary } from '@mailsvc/contract/api';
import { isFailureReason, isMessageErrorCode } from '@mailsvc/contract/message-errors';
import type { MessageSummaryRow } from '../../db/repositories/messages.js';

export function toMessageSummary(row: MessageSummaryRow): MessageSummary {
  const error = row.last_error as { code?: unknown; message?: unknown; reason?: unknown } | null;
  return {
    messageId: row.id,
    templateId: row.template_id,
    templateVersion: row.template_version,
    status: row.status,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    ...(row.scheduled_at && { scheduledAt: row.scheduled_at.toISOString() }),
    ...(row.sent_at && { sentAt: row.sent_at.toISOString() }),
    ...(row.delivered_at && { deliveredAt: row.delivered_at.toISOString() }),
    ...(row.bulk_job_id && { bulkJobId: row.bulk_job_id }),
    ...(error &&
      isMessageErrorCode(error.code) &&
      typeof error.message === 'string' && {
        error: {
          code: error.code,
          message: error.message,
          ...(isFailureReason(error.reason) && { reason: error.reason }),
        },
      }),
    metadata: (row.metadata as Record<string, string> | null) ?? {},
  };
}
