import { UNSAFE_DISPLAY_CHARACTERS } from '@mailsvc/contract/display-name';
import { type TSchema, type TString, Type } from '@sinclair/typebox';
import { ULID_PATTERN } from '../../ids.js';

/**
 * What a pattern or format asks for, in words, said instead of Ajv's `must match pattern "^key_…$"`
 * (input-problems.ts). Keyed by the pattern or format itself, so an Ajv error alone finds it.
 */
export const inputRuleMessages = new Map<string, string>();

/** Gives a string schema's pattern (or else its format) the message its errors are reported with. */
function explained<T extends TString>(schema: T, message: string): T {
  const rule = schema.pattern !== undefined ? `pattern:${schema.pattern}` : `format:${schema.format}`;
  inputRuleMessages.set(rule, message);
  return schema;
}

const ID_NOUNS = {
  ten: 'a tenant',
  prj: 'a project',
  env: 'an environment',
  key: 'a key',
  dom: 'a domain',
  whs: 'an intake secret',
  job: 'a bulk send',
};
export type AdminIdPrefix = keyof typeof ID_NOUNS;

export const IdOf = (prefix: AdminIdPrefix) =>
  explained(
    Type.String({ pattern: `^${prefix}_${ULID_PATTERN}$`, description: `${prefix}_… id` }),
    `expected ${ID_NOUNS[prefix]} id like ${prefix}_01J…`,
  );
export const PlanId = explained(
  Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,62}$', description: 'plan id, e.g. starter' }),
  'must be a plan id: lowercase letters, digits, - and _, starting with a letter or digit, at most 63 characters',
);
/** A record's name: one line, no control, bidirectional or invisible characters. */
export const Name = explained(
  Type.String({
    minLength: 1,
    maxLength: 200,
    pattern: `^[^${UNSAFE_DISPLAY_CHARACTERS}]*$`,
    description: 'name: one line, no control, bidirectional or invisible characters',
  }),
  'must not contain line breaks, control, bidirectional or invisible characters',
);
/** A month, YYYY-MM. */
export const Month = explained(
  Type.String({ pattern: '^[0-9]{4}-(0[1-9]|1[0-2])$', description: 'YYYY-MM' }),
  'must be a month such as 2026-11',
);
const Email = explained(
  Type.String({ format: 'email', maxLength: 254 }),
  'must be one email address such as jane@example.com',
);
/** An address, or '' to clear the setting. */
export const OptionalEmail = Type.Union([Email, Type.Literal('')]);
export const DisplayText = Type.String({ maxLength: 120 });
/** RFC 3339 with an offset, 1970–9999 in UTC, no leap second (domain/timestamp.ts). */
export const Timestamp = explained(
  Type.String({ format: 'date-time', maxLength: 40 }),
  'must be an RFC 3339 time with an offset, such as 2026-12-01T00:00:00Z',
);

export const SenderSettingsInput = {
  fromEmail: Type.Optional(OptionalEmail),
  fromName: Type.Optional(DisplayText),
  replyTo: Type.Optional(OptionalEmail),
};

export const Strict = <T extends Record<string, TSchema>>(props: T) =>
  Type.Object(props, { additionalProperties: false });
