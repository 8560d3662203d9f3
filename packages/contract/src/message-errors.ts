// The closed list of codes a message's `error` can hold (POST /v1/messages/get, the items of
// /v1/recipients/status), whatever found the failure: the worker's SMTP attempt, a DSN mailed to
// `mailsvc inbound`, a relay event or Amazon SES. One code per meaning: a hard bounce is
// `hard_bounce` whether the relay refused the recipient at RCPT or a DSN reported it a day later.
// docs/errors.md is generated from here. Browser-safe.

export const messageErrors = {
  hard_bounce: {
    status: 'bounced',
    description:
      "The recipient's mailbox or domain does not exist: refused at delivery (5.1.x, 5.2.1) or reported later by a DSN, a relay event or Amazon SES. Counts against the recipient (cooldown, suppression).",
  },
  rejected: {
    status: 'failed',
    description:
      "Refused for good, not because of the recipient's address: policy, reputation or content (5.7.x), a relay without SMTPUTF8 for a non-ASCII address, or a report of a failure that is not a hard bounce. The recipient is not touched.",
  },
  temporary_failure: {
    status: 'deferred',
    description:
      'Refused for now (4xx, a timeout, a dropped connection): the message is retried with backoff.',
  },
  expired: {
    status: 'expired',
    description:
      "Retries ran out before the template's expiry, the message expired before it could be sent, or its bulk send stayed paused until then.",
  },
  recipient_complained: {
    status: 'suppressed',
    description: 'The recipient complained after the message was accepted: nothing was sent.',
  },
  recipient_unsubscribed: {
    status: 'suppressed',
    description: 'The recipient unsubscribed (notification templates) after the accept: nothing was sent.',
  },
  recipient_suppressed: {
    status: 'suppressed',
    description:
      'The recipient entered a hard-bounce cooldown or suppression after the accept: nothing was sent.',
  },
  bulk_send_canceled: {
    status: 'failed',
    description: 'Its bulk send was canceled while the message was being picked up: nothing was sent.',
  },
  render_failed: {
    status: 'failed',
    description: 'The template version could not be rendered (it no longer exists): nothing was sent.',
  },
  internal_error: {
    status: 'deferred',
    description:
      "An internal error of mailsvc interrupted the attempt (the message's timeline has an `error` event naming the step): the message is retried with the usual backoff until its expiry.",
  },
  dkim_failed: {
    status: 'failed',
    description: "The sending domain's DKIM key could not be used: nothing was sent unsigned.",
  },
} as const satisfies Record<string, { status: string; description: string }>;

export type MessageErrorCode = keyof typeof messageErrors;

export const MESSAGE_ERROR_CODES = Object.keys(messageErrors) as MessageErrorCode[];

export const isMessageErrorCode = (code: unknown): code is MessageErrorCode =>
  typeof code === 'string' && Object.hasOwn(messageErrors, code);
