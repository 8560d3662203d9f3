// The references a report may name our message by, each carrying a tag we signed (DESIGN.md §5):
// - the envelope sender (VERP): bounces+<messageId>.<tag>@<bounce domain>, where bounces go;
// - the Message-ID header: <<messageId>.<tag>@<sending domain>>, which mailbox providers keep in
//   the original attached to an ARF complaint (they redact the recipient, not the Message-ID).
// A tag is an HMAC of the message id under a key derived from the service secret. A report
// naming a message without a valid tag — a guessed id, an id read off another mail, another
// message's tag, our own X-Mailsvc-Message-ID header, which is not signed — names no message, so
// nobody can bounce or complain a stranger (or a whole bulk job) by mailing us a fake report.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ULID_PATTERN } from '../../ids.js';

/** 64 bits of HMAC-SHA256, lowercase hex: a VERP local part stays within 64 characters (55). */
const TAG_BYTES = 8;
const VERP_LOCAL = new RegExp(`^bounces\\+(msg_${ULID_PATTERN})\\.([0-9a-f]{16})$`, 'i');
const MESSAGE_ID = new RegExp(`^<?\\s*(msg_${ULID_PATTERN})\\.([0-9a-f]{16})@[^@\\s<>]+?\\s*>?$`, 'i');

type Use = 'verp' | 'message-id';

function tagOf(key: Buffer, use: Use, messageId: string): Buffer {
  return createHmac('sha256', key).update(`${use}:${messageId}`).digest().subarray(0, TAG_BYTES);
}

/** The id when `tag` (hex) is the one minted for it; case-insensitive, as mail systems may change case. */
function verified(key: Buffer, use: Use, id: string, tag: string): string | null {
  const messageId = `msg_${id.slice(4).toUpperCase()}`;
  const given = Buffer.from(tag.toLowerCase(), 'hex');
  const expected = tagOf(key, use, messageId);
  return given.length === expected.length && timingSafeEqual(given, expected) ? messageId : null;
}

/** The envelope sender (Return-Path) of a message. */
export function verpAddress(key: Buffer, messageId: string, domain: string): string {
  return `bounces+${messageId}.${tagOf(key, 'verp', messageId).toString('hex')}@${domain}`;
}

/** The message id a VERP address names, or null when it is not one we minted. */
export function messageIdFromVerp(key: Buffer, address: string): string | null {
  const at = address.lastIndexOf('@');
  if (at <= 0) return null;
  const m = VERP_LOCAL.exec(address.slice(0, at).trim());
  return m ? verified(key, 'verp', m[1]!, m[2]!) : null;
}

/** `<msg_….<tag>@sending-domain>`: the same on every attempt, so receivers can drop duplicates. */
export function signedMessageIdHeader(key: Buffer, messageId: string, sendingDomain: string): string {
  return `<${messageId}.${tagOf(key, 'message-id', messageId).toString('hex')}@${sendingDomain}>`;
}

/** The message a Message-ID header names, or null when it is not one we minted (brackets optional). */
export function messageIdFromHeader(key: Buffer, value: string): string | null {
  const m = MESSAGE_ID.exec(value.trim());
  return m ? verified(key, 'message-id', m[1]!, m[2]!) : null;
}
