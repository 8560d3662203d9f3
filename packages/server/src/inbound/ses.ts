// An Amazon SES notification (the Message of a verified SNS notification, see sns.ts) → our
// feedback items and the reference to the message they are about. Reads both formats SES
// publishes: the "notification" format of identity feedback (`notificationType`) and the event
// publishing format of configuration sets (`eventType`). Only Bounce, Complaint and Delivery
// matter here; every other type, and anything that is not such a JSON document, reads as null.
import { normaliseStatus, readFailure, statusInReply } from '../domain/failures/classify-failure.js';
import type { FeedbackItem, MessageRef } from '../domain/feedback/types.js';
import type { HeaderField } from './mime.js';
import { clip, refFromHeaders } from './report-parts.js';

export type SesEventType = 'Bounce' | 'Complaint' | 'Delivery';

export interface SesFeedback {
  eventType: SesEventType;
  items: FeedbackItem[];
  ref: MessageRef;
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** `user@example.com` or `Name <user@example.com>` → the address, lower-cased; undefined without an @. */
function addressOf(value: unknown): string | undefined {
  const text = str(value)?.trim();
  if (!text) return undefined;
  const address = (/<([^<>]+)>\s*$/.exec(text)?.[1] ?? text).trim();
  return address.includes('@') ? address.toLowerCase() : undefined;
}

/** The finding with the recipient only when SES names a usable address. */
function item(kind: FeedbackItem['kind'], hard: boolean, recipient: string | undefined): FeedbackItem {
  return recipient ? { kind, hard, recipient } : { kind, hard };
}

/**
 * How the SES notification names our message: from `mail.headers` (present when the identity or
 * configuration set includes the original headers) the X-Mailsvc-Message-ID and the last
 * Message-ID, names matched case-insensitively; `mail.commonHeaders.messageId` when no Message-ID
 * header came. Never `mail.messageId`: that is SES's own id, which we do not store.
 */
function refOf(mail: unknown): MessageRef {
  if (!isRecord(mail)) return {};
  const headers: HeaderField[] = [];
  if (Array.isArray(mail.headers)) {
    for (const h of mail.headers) {
      if (!isRecord(h)) continue;
      const name = str(h.name);
      const value = str(h.value);
      if (name !== undefined && value !== undefined) headers.push({ name: name.trim().toLowerCase(), value });
    }
  }
  const ref = refFromHeaders(headers);
  if (!ref.messageIdHeader && isRecord(mail.commonHeaders)) {
    const id = str(mail.commonHeaders.messageId)?.trim().replace(/^<|>$/g, '');
    if (id) ref.messageIdHeader = id;
  }
  return ref;
}

/**
 * One `failed` item per bounced recipient, classified by the rule every intake shares
 * (classify-failure.ts): hard only for a Permanent bounce whose status — the recipient's
 * `status`, or when SES gives none the code quoted in its `diagnosticCode` — says the mailbox or
 * domain does not exist. A Permanent bounce without any status is hard only for SES's `NoEmail`
 * subtype ("the address does not exist"); `General`, `Suppressed` and `OnAccountSuppressionList`
 * say too little. Transient and Undetermined bounces are never hard.
 */
function bounceItems(bounce: Json): FeedbackItem[] | null {
  if (!Array.isArray(bounce.bouncedRecipients)) return null;
  const permanent = bounce.bounceType === 'Permanent';
  const items: FeedbackItem[] = [];
  for (const entry of bounce.bouncedRecipients) {
    if (!isRecord(entry)) continue;
    const diagnostic = clip(str(entry.diagnosticCode));
    const status = normaliseStatus(str(entry.status)) ?? statusInReply(diagnostic);
    // Without a status, SES's own NoEmail subtype says the address does not exist.
    const { hard, reason } = readFailure({
      source: 'report',
      permanent,
      status: status ?? (bounce.bounceSubType === 'NoEmail' ? '5.1.1' : undefined),
      text: diagnostic,
    });
    const found = item('failed', hard, addressOf(entry.emailAddress));
    found.reason = reason;
    if (status) found.status = status;
    if (diagnostic) found.diagnostic = diagnostic;
    items.push(found);
  }
  return items;
}

/**
 * One `complained` item per complained recipient when the complaint is abuse. SES often sends no
 * `complaintFeedbackType` at all — many mailbox providers' feedback loops do not say — and a
 * complaint without one is a spam report, so it counts; a declared other type (`not-spam`,
 * `fraud`, `virus`, `other`, …) is no complaint against the recipient and gives no items.
 */
function complaintItems(complaint: Json): FeedbackItem[] | null {
  if (!Array.isArray(complaint.complainedRecipients)) return null;
  const type = complaint.complaintFeedbackType;
  if (
    type !== undefined &&
    type !== null &&
    !(typeof type === 'string' && type.trim().toLowerCase() === 'abuse')
  ) {
    return [];
  }
  return complaint.complainedRecipients
    .filter(isRecord)
    .map((entry) => item('complained', false, addressOf(entry.emailAddress)));
}

/** One `delivered` item per recipient the receiving server accepted; its SMTP reply as diagnostic. */
function deliveryItems(delivery: Json): FeedbackItem[] | null {
  if (!Array.isArray(delivery.recipients)) return null;
  const diagnostic = clip(str(delivery.smtpResponse));
  return delivery.recipients.map((recipient) => {
    const found = item('delivered', false, addressOf(recipient));
    if (diagnostic) found.diagnostic = diagnostic;
    return found;
  });
}

/** The findings of an SES Bounce, Complaint or Delivery notification; null for anything else. */
export function sesFeedback(message: string): SesFeedback | null {
  let body: unknown;
  try {
    body = JSON.parse(message);
  } catch {
    return null;
  }
  if (!isRecord(body)) return null;
  // The notification format names its type `notificationType`, event publishing `eventType`.
  const type = str(body.notificationType) ?? str(body.eventType);
  let items: FeedbackItem[] | null = null;
  let eventType: SesEventType;
  if (type === 'Bounce' && isRecord(body.bounce)) {
    eventType = 'Bounce';
    items = bounceItems(body.bounce);
  } else if (type === 'Complaint' && isRecord(body.complaint)) {
    eventType = 'Complaint';
    items = complaintItems(body.complaint);
  } else if (type === 'Delivery' && isRecord(body.delivery)) {
    eventType = 'Delivery';
    items = deliveryItems(body.delivery);
  } else {
    return null;
  }
  if (!items) return null;
  return { eventType, items, ref: refOf(body.mail) };
}
