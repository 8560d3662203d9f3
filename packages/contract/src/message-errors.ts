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

/**
 * Why a failure happened, in one closed vocabulary whatever read it (a reply at delivery, a DSN,
 * a plain-text bounce, a relay's or SES's event): carried by a failed, bounced or deferred
 * message's `error.reason` and its timeline event's `reason`. docs/feedback.md has an example of
 * each. Browser-safe.
 */
export const failureReasons = {
  user_unknown: 'The mailbox does not exist (550 5.1.1 User unknown). A hard bounce.',
  host_unknown:
    'The domain does not exist or has no mail host (5.1.2, "Host or domain name not found"). A hard bounce.',
  mailbox_disabled:
    'The mailbox exists but is disabled (5.2.1 "The email account … is disabled"). A hard bounce.',
  not_accepting_mail:
    'The domain publishes that it takes no mail (null MX, RFC 7505: 5.1.10). A hard bounce.',
  mailbox_full:
    'The mailbox is over its quota (5.2.2). Never counted against the recipient; retried when the answer was a 4xx.',
  message_too_large: 'The message is over the receiver’s size limit (5.3.4, 5.2.3).',
  rate_limited:
    'The receiver limits the rate or greylists (4.7.x, "too many recipients", "try again later"). Never counted against the recipient; retried when the answer was a 4xx.',
  spam_blocked:
    'Refused as spam or for the sending IP’s or domain’s reputation (a DNSBL such as Spamhaus). The recipient is not touched.',
  policy_blocked:
    'Refused by the receiver’s policy (5.7.1, "recipient preferences", a bad sender address). The recipient is not touched.',
  auth_failed:
    'Refused for authentication: SPF, DKIM or DMARC (5.7.23–5.7.26). The recipient is not touched.',
  content_rejected: 'Refused for the content (a filter, an attachment type).',
  relay_denied: 'The server will not relay for this address ("Unable to relay").',
  expired: 'Retries ran out before the message’s expiry (4.4.7).',
  network_error:
    'No answer, a dropped connection, a timeout or a routing problem (4.4.x). Never counted against the recipient; retried when the answer was a 4xx.',
  system_error:
    'A fault on the receiving side or in our relay (a local delivery error, resources, a relay that refused our credentials). Never counted against the recipient; retried when the answer was a 4xx.',
  unknown: 'Nothing in the code or the words says more.',
} as const satisfies Record<string, string>;

export type FailureReason = keyof typeof failureReasons;

export const FAILURE_REASONS = Object.keys(failureReasons) as FailureReason[];

export const isFailureReason = (reason: unknown): reason is FailureReason =>
  typeof reason === 'string' && Object.hasOwn(failureReasons, reason);
