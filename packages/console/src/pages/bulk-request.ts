// The bulk send form's request: which templates it offers, the data it starts with, and the body of
// POST /v1/contacts/send and its dry run built from what was typed (docs/bulk.md).
import type { TemplateData, TemplateId } from '../../../client/src/templates.js';
import type { Mailsvc } from '../sdk.js';

export type BulkSendBody = Parameters<Mailsvc['contacts']['send']>[0];
export type SkipCounts = Awaited<ReturnType<Mailsvc['contacts']['sendDryRun']>>['skipped'];

/**
 * The catalogue's notification templates: a bulk send is for operational app notifications
 * (docs/bulk.md), and a recipient's notification unsubscribe is honoured for these.
 */
export const BULK_TEMPLATES = [
  'reminder',
  'mention',
  'comment-reply',
  'task-assigned',
  'item-shared',
  'approval-requested',
  'report-ready',
  'activity-digest',
] as const satisfies readonly TemplateId[];

/** The template data of the contract's example (operations/send-to-contacts.ts), for `reminder`. */
const EXAMPLE_DATA = {
  subject: 'Your workshop starts tomorrow, {{contact.name}}',
  heading: 'See you tomorrow',
  intro: 'Your seat for {{contact.customFields.company}} is booked.',
} satisfies TemplateData['reminder']['v1'];
export const EXAMPLE_DATA_TEXT = JSON.stringify(EXAMPLE_DATA, null, 2);

/** Skip reasons in the order the API applies them, with what each means. */
export const SKIP_REASONS: [keyof SkipCounts, string][] = [
  ['not_found', 'Not found (no contact with this id or email)'],
  ['duplicate', 'Duplicate (named more than once)'],
  ['complained', 'Complained'],
  ['unsubscribed', 'Unsubscribed from notifications'],
  ['suppressed', 'Suppressed or in a hard-bounce cooldown'],
];

export const skippedTotal = (s: SkipCounts) => SKIP_REASONS.reduce((n, [k]) => n + (s[k] ?? 0), 0);

/** Named contacts at most (contactIds). */
const CONTACTS_MAX = 1000;

export interface BulkForm {
  templateId: string;
  groupSlug: string;
  /** Contact emails or ids, separated by spaces, commas, semicolons or line breaks. */
  contacts: string;
  dataText: string;
}

export const INITIAL_FORM: BulkForm = {
  templateId: BULK_TEMPLATES[0],
  groupSlug: '',
  contacts: '',
  dataText: EXAMPLE_DATA_TEXT,
};

/** The body for the environment, or what is wrong with the form. */
export function buildRequest(
  form: BulkForm,
  scope: { projectId: string; environmentId: string },
): { ok: true; body: BulkSendBody } | { ok: false; error: string } {
  let data: unknown;
  try {
    data = JSON.parse(form.dataText.trim() || '{}');
  } catch (e) {
    return { ok: false, error: `Template data (JSON) is not JSON: ${(e as Error).message}` };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    return { ok: false, error: 'Template data (JSON) must be a JSON object, such as {"subject": "…"}.' };
  const contactIds = form.contacts.split(/[\s,;]+/).filter(Boolean);
  if (contactIds.length > CONTACTS_MAX)
    return { ok: false, error: `Contacts: at most ${CONTACTS_MAX} may be named (use a group for more).` };
  if (!form.groupSlug && contactIds.length === 0)
    return { ok: false, error: 'Choose a group or name some contacts: a bulk send needs recipients.' };
  const body: BulkSendBody = {
    projectId: scope.projectId,
    environmentId: scope.environmentId,
    templateId: form.templateId,
    templateData: data as Record<string, unknown>,
  };
  if (form.groupSlug) body.groupSlug = form.groupSlug;
  if (contactIds.length > 0) body.contactIds = contactIds;
  return { ok: true, body };
}

/** A fresh Idempotency-Key for one confirmed send; undefined lets the client make its own. */
export function newIdempotencyKey(): string | undefined {
  const c = globalThis.crypto as Crypto | undefined;
  return typeof c?.randomUUID === 'function' ? `console-bulk-${c.randomUUID()}` : undefined;
}
