import { UNSAFE_DISPLAY_CHARACTERS } from '@mailsvc/contract/display-name';
import { type TSchema, Type } from '@sinclair/typebox';
import { ULID_PATTERN } from '../../ids.js';

export const IdOf = (prefix: string) =>
  Type.String({ pattern: `^${prefix}_${ULID_PATTERN}$`, description: `${prefix}_… id` });
export const PlanId = Type.String({
  pattern: '^[a-z0-9][a-z0-9_-]{0,62}$',
  description: 'plan id, e.g. starter',
});
/** A record's name: one line, no control, bidirectional or invisible characters. */
export const Name = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: `^[^${UNSAFE_DISPLAY_CHARACTERS}]*$`,
  description: 'name: one line, no control, bidirectional or invisible characters',
});
/** An address, or '' to clear the setting. */
export const OptionalEmail = Type.Union([Type.String({ format: 'email', maxLength: 254 }), Type.Literal('')]);
export const DisplayText = Type.String({ maxLength: 120 });
/** RFC 3339 with an offset, 1970–9999 in UTC, no leap second (domain/timestamp.ts). */
export const Timestamp = Type.String({ format: 'date-time', maxLength: 40 });

export const SenderSettingsInput = {
  fromEmail: Type.Optional(OptionalEmail),
  fromName: Type.Optional(DisplayText),
  replyTo: Type.Optional(OptionalEmail),
};

export const Strict = <T extends Record<string, TSchema>>(props: T) =>
  Type.Object(props, { additionalProperties: false });
