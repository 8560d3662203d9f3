// The rules of one contact write, shared by POST /v1/contacts/upsert, /upsert-many and the CSV
// import: the body schema (the import checks each row against the same compiled schema), then
// what a schema cannot say — the normalised email and the custom fields' key count.
import {
  CUSTOM_FIELDS_MAX,
  type UpsertContactRequest,
  UpsertContactRequest as UpsertContactSchema,
} from '@mailsvc/contract/api';
import type { ValidateFunction } from 'ajv';
import type { ContactWrite } from '../../db/repositories/contacts.js';
import type { ErrorDetail } from '../../errors.js';
import { newId } from '../../ids.js';
import { createAjv, toFieldProblems } from '../../validation.js';
import { parseEmail } from '../email.js';

export type ContactInputResult = { ok: true; write: ContactWrite } | { ok: false; problems: ErrorDetail[] };

/** Compiled on first use: the API's routes have their own (Fastify's), the import needs this one. */
let validateBody: ValidateFunction | undefined;

/** The body schema, for input that did not come through an HTTP route (the CSV import). */
export function schemaProblems(input: unknown, pointer = ''): ErrorDetail[] {
  validateBody ??= createAjv().compile(UpsertContactSchema);
  if (validateBody(input)) return [];
  return toFieldProblems(validateBody.errors).map((p) => ({
    path: p.path === '/' ? pointer || '/' : `${pointer}${p.path}`,
    message: p.message,
  }));
}

/**
 * A body the schema accepted → the write, or its problems with paths under `pointer`
 * (`/contacts/3` for an item of upsert-many).
 */
export function toContactWrite(input: UpsertContactRequest, pointer: string, now: Date): ContactInputResult {
  const problems: ErrorDetail[] = [];
  const email = parseEmail(input.email);
  if (!email.ok) problems.push({ path: `${pointer}/email`, message: email.reason });
  if (input.customFields) {
    const kept = Object.values(input.customFields).filter((v) => v !== null).length;
    if (kept > CUSTOM_FIELDS_MAX)
      problems.push({
        path: `${pointer}/customFields`,
        message: `must have at most ${CUSTOM_FIELDS_MAX} keys (it sets ${kept})`,
      });
  }
  if (!email.ok || problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    write: {
      newId: newId('ct', now.getTime()),
      email: email.address,
      ...(input.name !== undefined && { name: input.name }),
      ...(input.customFields !== undefined && { customFields: input.customFields }),
      ...(input.groupSlugs !== undefined && { groupSlugs: [...input.groupSlugs] }),
    },
  };
}

export const overLimitProblem = (pointer: string): ErrorDetail => ({
  path: `${pointer}/customFields`,
  message: `must leave at most ${CUSTOM_FIELDS_MAX} keys once merged into the stored fields`,
});
