import type {
  GetContactRequest,
  ListContactsRequest,
  UpsertContactRequest,
  UpsertContactsRequest,
} from '@mailsvc/contract/api';
import type { FastifyInstance } from 'fastify';
import { getContact } from '../../domain/contacts/get-contact.js';
import { listContacts } from '../../domain/contacts/list-contacts.js';
import { INVALID_CONTACT, upsertContact } from '../../domain/contacts/upsert-contact.js';
import { byIndex, sameContactProblems, upsertContacts } from '../../domain/contacts/upsert-contacts.js';
import type { Deps } from '../../domain/deps.js';
import { ApiError } from '../../errors.js';
import { toFieldProblems } from '../../validation.js';
import { authOf } from '../auth-hook.js';
import { apiRoute } from '../route.js';

// Tenant-level, reachable with an environment's key (seed §5.4); the key's environment gives the
// contacts' status and delivery summary.
const ACCESS = ['trial', 'project', 'environment'] as const;

export function contactRoutes(app: FastifyInstance, deps: Deps) {
  apiRoute(app, 'upsertContact', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await upsertContact(deps, authOf(req), req.body as UpsertContactRequest)),
    }),
  });
  apiRoute(app, 'upsertContacts', {
    access: ACCESS,
    // Every problem in one answer: the same contact twice is found with the schema's problems.
    attachValidation: true,
    handler: async (req) => {
      if (req.validationError) {
        const problems = [
          ...toFieldProblems(req.validationError.validation),
          ...sameContactProblems((req.body as { contacts?: unknown } | null)?.contacts).map((p) => p.problem),
        ];
        throw new ApiError('invalid_request', INVALID_CONTACT, byIndex(problems));
      }
      return { ok: true, ...(await upsertContacts(deps, authOf(req), req.body as UpsertContactsRequest)) };
    },
  });
  apiRoute(app, 'getContact', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await getContact(deps, authOf(req), req.body as GetContactRequest)),
    }),
  });
  apiRoute(app, 'listContacts', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await listContacts(deps, authOf(req), req.body as ListContactsRequest)),
    }),
  });
}
