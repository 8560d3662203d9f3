// POST /v1/domains/get: one sending domain the key's environment can use, with what the last DNS check found for each record.
import { type Static, Type } from '@sinclair/typebox';
import { DomainId, SENDING_DOMAIN_EXAMPLE, SendingDomain } from './shared/domain.js';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import type { Operation } from './shared/operation.js';

export const GetDomainRequest = Type.Object({ domainId: DomainId }, { additionalProperties: false });
export type GetDomainRequest = Static<typeof GetDomainRequest>;

export const GetDomainResponse = Type.Object(
  { ok: Type.Literal(true), domain: SendingDomain },
  { additionalProperties: false },
);
export type GetDomainResponse = Static<typeof GetDomainResponse>;

export const getDomain = {
  method: 'POST',
  path: '/v1/domains/get',
  sdk: 'domains.get',
  summary: 'One sending domain with each record’s state (extension)',
  body: GetDomainRequest,
  response: GetDomainResponse,
  errors: [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS, 'domain_not_found'],
  example: {
    body: { domainId: SENDING_DOMAIN_EXAMPLE.domainId },
    response: { ok: true, domain: SENDING_DOMAIN_EXAMPLE },
  },
} as const satisfies Operation;
