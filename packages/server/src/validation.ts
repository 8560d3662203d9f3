// One Ajv set-up for every JSON Schema the server checks (HTTP bodies, admin CLI input), so
// the CLI and the API accept exactly the same values.

import type { FieldError } from '@mailsvc/templates';
import { toFieldErrors } from '@mailsvc/templates/field-errors';
import { Ajv, type Options } from 'ajv';
import { isEmail } from './domain/email.js';
import { isTimestamp } from './domain/timestamp.js';

export const ajvOptions: Options = {
  allErrors: true,
  removeAdditional: false,
  useDefaults: true,
  coerceTypes: false,
  strict: true,
  // One-of-many bodies told apart by a property (contacts list filters: by field, then op), so a
  // wrong value is reported at its own path rather than once per branch.
  discriminator: true,
  // `type: ['string', 'number', 'boolean', 'null']` (a contact's custom field value): one error
  // for a wrong value instead of one per branch of an anyOf.
  allowUnionTypes: true,
};

export function addMailsvcFormats(ajv: Ajv): Ajv {
  // Stricter than RFC 3339 alone: only instants PostgreSQL stores as given (domain/timestamp.ts).
  ajv.addFormat('date-time', { type: 'string', validate: isTimestamp });
  ajv.addFormat('email', { type: 'string', validate: isEmail });
  return ajv;
}

export function createAjv(): Ajv {
  return addMailsvcFormats(new Ajv(ajvOptions));
}

export type FieldProblem = FieldError;

/** Ajv errors as `{path, message}` JSON Pointers, the same mapping the template schemas use. */
export const toFieldProblems = toFieldErrors;
