// POST /v1/domains/delete: removes a sending domain; mail of its scope then goes from the next
// domain up (project, tenant) or the service's default domain, where its From allows.
import { type Static, Type } from '@sinclair/typebox';
import { DomainId, SENDING_DOMAIN_EXAMPLE } from './shared/domain.js';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import type { Operation } from './shared/operation.js';

export const DeleteDomainRequest = Type.Object({ domainId: DomainId }, { additionalProperties: false });
export type DeleteDomainRequest = Static<typeof DeleteDomainRequest>;

export const DeleteDomainResponse = Type.Object({ ok: Type.Literal(true) }, { additionalProperties: false });
export type DeleteDomainResponse = Static<typeof DeleteDomainResponse>;

export const deleteDomain = {
  method: 'POST',
  path: '/v1/domains/delete',
  sdk: 'domains.delete',
  summary: 'Delete a sending domain (extension)',
  body: DeleteDomainRequest,
  response: DeleteDomainResponse,
  errors: [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS, 'domain_not_found'],
  example: { body: { domainId: SENDING_DOMAIN_EXAMPLE.domainId }, response: { ok: true } },
} as const satisfies Operation;
