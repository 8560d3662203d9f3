// What every reader of a report shares: the free text as we keep it, the returned original's
// headers and how they name our message.

import { toStorableString } from '@mailsvc/contract/json-input';
import type { MessageRef } from '../domain/feedback/types.js';
import {
  allHeaders,
  type HeaderField,
  lastHeader,
  type MimePart,
  parseHeaderBlock,
  walkParts,
} from './mime.js';

const DIAGNOSTIC_MAX = 500;
const ORIGINAL_TYPES = new Set([
  'message/rfc822',
  'message/global',
  'text/rfc822-headers',
  'message/global-headers',
]);
const OUR_ID = /^\s*(msg_[0-9A-Za-z]{26})\s*$/;

/**
 * Free text of a report as we keep it: one line, at most 500 characters, without control
 * characters or unpaired surrogates (which PostgreSQL's jsonb refuses and logs would carry).
 */
export function clip(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const flat = text
    .slice(0, DIAGNOSTIC_MAX * 4)
    .replace(/[\p{Cc}\p{Cf}\s]+/gu, ' ')
    .trim()
    .slice(0, DIAGNOSTIC_MAX);
  return toStorableString(flat) || undefined;
}

/** The headers of the returned original: a message/rfc822 (or global) part, or text/rfc822-headers. */
export function originalHeaders(root: MimePart): HeaderField[] | undefined {
  for (const part of walkParts(root)) {
    if (part === root || !ORIGINAL_TYPES.has(part.contentType)) continue;
    if (part.parts[0]) return part.parts[0].headers;
    return parseHeaderBlock(part.body.toString('utf8'));
  }
  return undefined;
}

/** How the returned original names our message: X-Mailsvc-Message-ID, its last Message-ID, its Return-Path. */
export function refFromHeaders(headers: HeaderField[] | undefined): MessageRef {
  if (!headers) return {};
  const ref: MessageRef = {};
  const ours = OUR_ID.exec(lastHeader(headers, 'x-mailsvc-message-id') ?? '');
  if (ours) ref.mailsvcMessageId = ours[1]!;
  const ids = allHeaders(headers, 'message-id');
  const last = ids[ids.length - 1]?.trim().replace(/^<|>$/g, '');
  if (last) ref.messageIdHeader = last;
  const returnPath = lastHeader(headers, 'return-path')?.trim().replace(/^<|>$/g, '');
  if (returnPath) ref.returnPath = returnPath;
  return ref;
}
