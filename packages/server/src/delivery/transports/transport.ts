// The transport boundary: everything SMTP-specific is classified here into three outcomes.
import type { FailureReason } from '@mailsvc/contract/message-errors';

/** A built, signed message ready to hand over. */
export interface OutgoingMessage {
  messageId: string;
  /** SMTP envelope: MAIL FROM is the VERP bounce address, RCPT TO the recipient. */
  envelope: { from: string; to: string };
  raw: Buffer;
  /** The message's queue priority (lower first): the SMTP pool sends waiting messages in this order. */
  priority?: number;
  /** For the capture transport's index (dev inbox: its filters by template and tenant). */
  meta: {
    templateId: string;
    subject: string;
    tenantId?: string;
    projectId?: string;
    environmentId?: string;
    projectName?: string;
    tenantName?: string;
  };
}

export type DeliveryOutcome =
  | { kind: 'sent'; smtpCode?: number; response: string }
  | {
      kind: 'soft_fail';
      smtpCode?: number;
      enhancedCode?: string;
      response: string;
      retryAfterMs?: number;
      /** Why, in the one failure vocabulary (domain/failures/classify-failure.ts). */
      reason?: FailureReason;
    }
  | {
      kind: 'hard_fail';
      smtpCode?: number;
      enhancedCode?: string;
      response: string;
      /** The mailbox or its domain is missing, by domain/failures/classify-failure.ts: the recipient bounces. */
      isRecipientBounce: boolean;
      /** Why, in the one failure vocabulary. */
      reason?: FailureReason;
    };

export interface Transport {
  readonly name: 'smtp' | 'capture';
  send(message: OutgoingMessage): Promise<DeliveryOutcome>;
  close(): Promise<void>;
}
