// VERP bounce addresses that carry a signed token (DESIGN.md §5): the envelope sender of a message
// is bounces+<messageId>.<tag>@<bounce domain>, where tag is an HMAC of the message id under a key
// derived from the service secret. A bounce or report sent to an address we did not mint — a
// guessed message id, another message's tag — names no message, so nobody can suppress a stranger
// by mailing us a fake bounce.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ULID_PATTERN } from '../../ids.js';

const PREFIX = 'bounces+';
/** 64 bits of HMAC-SHA256, lowercase hex: the local part stays within 64 characters (55). */
const TAG_BYTES = 8;
const LOCAL = new RegExp(`^bounces\\+(msg_${ULID_PATTERN})\\.([0-9a-f]{16})$`, 'i');

function tagOf(key: Buffer, messageId: string): Buffer {
  return createHmac('sha256', key).update(`verp:${messageId}`).digest().subarray(0, TAG_BYTES);
}

/** The envelope sender (Return-Path) of a message. */
export function verpAddress(key: Buffer, messageId: string, domain: string): string {
  return `${PREFIX}${messageId}.${tagOf(key, messageId).toString('hex')}@${domain}`;
}

/**
 * The message id a VERP address names, or null when it is not one we minted. Mail systems may
 * change the letter case of a local part: the id and tag are read case-insensitively.
 */
export function messageIdFromVerp(key: Buffer, address: string): string | null {
  const at = address.lastIndexOf('@');
  if (at <= 0) return null;
  const m = LOCAL.exec(address.slice(0, at).trim());
  if (!m) return null;
  const messageId = `msg_${m[1]!.slice(4).toUpperCase()}`;
  const given = Buffer.from(m[2]!.toLowerCase(), 'hex');
  const expected = tagOf(key, messageId);
  return given.length === expected.length && timingSafeEqual(given, expected) ? messageId : null;
}
