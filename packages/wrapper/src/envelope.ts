// The seed's common request envelope (§2), strict: every route takes exactly these properties.
import { parseEmail } from '@mailsvc/contract/email';
import { isIdempotencyKey } from '@mailsvc/contract/http';
import { metadataProblems } from '@mailsvc/contract/metadata';
import type { ErrorDetail } from './errors.js';

export interface Envelope {
  to: string;
  data: Record<string, unknown>;
  templateVersion: string;
  from?: string;
  fromName?: string;
  replyTo?: string;
  /** Passed on to the core with the send (DESIGN.md §12): stored, never rendered. */
  metadata?: Record<string, string>;
  idempotencyKey?: string;
}

export const DEFAULT_TEMPLATE_VERSION = 'v1';

const TEMPLATE_VERSION = /^[A-Za-z0-9._-]{1,32}$/;
const FIELDS = new Set([
  'to',
  'data',
  'templateVersion',
  'from',
  'fromName',
  'replyTo',
  'metadata',
  'idempotencyKey',
]);

export type EnvelopeResult =
  | { ok: true; envelope: Envelope; recipient: string }
  | { ok: false; details: ErrorDetail[] };

const escapePointer = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');

function checkEmail(details: ErrorDetail[], name: string, value: unknown): string | undefined {
  if (typeof value !== 'string') {
    details.push({ path: `/${name}`, message: 'must be a string' });
    return undefined;
  }
  const parsed = parseEmail(value);
  if (!parsed.ok) {
    details.push({ path: `/${name}`, message: parsed.reason });
    return undefined;
  }
  return parsed.address;
}

/** The fields that say who the email is from; callers may set them only when the operator allows. */
export const SENDER_FIELDS = ['from', 'fromName', 'replyTo'] as const;
const SENDER_REFUSED = 'may not be set by callers unless MAILSVC_ALLOW_SENDER_OVERRIDE=true';

/**
 * Every problem of the envelope at once, each with a JSON Pointer into the body. Without
 * `allowSenderOverride`, `from`, `fromName` and `replyTo` are refused whatever their value.
 */
export function checkEnvelope(body: unknown, opts: { allowSenderOverride: boolean }): EnvelopeResult {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { ok: false, details: [{ path: '/', message: 'must be a JSON object' }] };
  }
  const b = body as Record<string, unknown>;
  const details: ErrorDetail[] = [];
  for (const key of Object.keys(b)) {
    if (!FIELDS.has(key))
      details.push({ path: `/${escapePointer(key)}`, message: 'is not an allowed property' });
  }
  let recipient: string | undefined;
  if (b.to === undefined) details.push({ path: '/to', message: 'is required' });
  else recipient = checkEmail(details, 'to', b.to);
  if (b.data === undefined) details.push({ path: '/data', message: 'is required' });
  else if (b.data === null || typeof b.data !== 'object' || Array.isArray(b.data))
    details.push({ path: '/data', message: 'must be an object' });
  if (b.templateVersion !== undefined) {
    if (typeof b.templateVersion !== 'string' || !TEMPLATE_VERSION.test(b.templateVersion))
      details.push({
        path: '/templateVersion',
        message: 'must be a version name such as v1 (1 to 32 letters, digits, dots, dashes)',
      });
  }
  if (!opts.allowSenderOverride) {
    for (const name of SENDER_FIELDS)
      if (b[name] !== undefined) details.push({ path: `/${name}`, message: SENDER_REFUSED });
  } else {
    if (b.from !== undefined) checkEmail(details, 'from', b.from);
    if (b.replyTo !== undefined) checkEmail(details, 'replyTo', b.replyTo);
    if (b.fromName !== undefined && typeof b.fromName !== 'string')
      details.push({ path: '/fromName', message: 'must be a string' });
  }
  if (b.metadata !== undefined) details.push(...metadataProblems(b.metadata, '/metadata'));
  if (b.idempotencyKey !== undefined) {
    if (!isIdempotencyKey(b.idempotencyKey))
      details.push({
        path: '/idempotencyKey',
        message: 'must be 1 to 120 printable ASCII characters without spaces',
      });
  }
  if (details.length > 0 || recipient === undefined) return { ok: false, details };
  const envelope: Envelope = {
    to: b.to as string,
    data: b.data as Record<string, unknown>,
    templateVersion: (b.templateVersion as string | undefined) ?? DEFAULT_TEMPLATE_VERSION,
  };
  if (b.from !== undefined) envelope.from = b.from as string;
  if (b.fromName !== undefined) envelope.fromName = b.fromName as string;
  if (b.replyTo !== undefined) envelope.replyTo = b.replyTo as string;
  if (b.metadata !== undefined) envelope.metadata = b.metadata as Record<string, string>;
  if (b.idempotencyKey !== undefined) envelope.idempotencyKey = b.idempotencyKey as string;
  return { ok: true, envelope, recipient };
}
