// POST /v1/domains/verify: asks the worker's checker to look at the domain's DNS now, or a minute
// after its last check (the answer's nextCheckAt). A failed domain starts its lifecycle again as
// pending.
import { type Static, Type } from '@sinclair/typebox';
import { DomainId, SENDING_DOMAIN_EXAMPLE, SendingDomain } from './shared/domain.js';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import type { Operation } from './shared/operation.js';

export const VerifyDomainRequest = Type.Object({ domainId: DomainId }, { additionalProperties: false });
export type VerifyDomainRequest = Static<typeof VerifyDomainRequest>;

export const VerifyDomainResponse = Type.Object(
  { ok: Type.Literal(true), domain: SendingDomain },
  { additionalProperties: false },
);
export type VerifyDomainResponse = Static<typeof VerifyDomainResponse>;

export const verifyDomain = {
  method: 'POST',
  path: '/v1/domains/verify',
  sdk: 'domains.verify',
  summary: 'Check a sending domain’s DNS now (extension)',
  body: VerifyDomainRequest,
  response: VerifyDomainResponse,
  errors: [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS, 'domain_not_found'],
  example: {
    body: { domainId: SENDING_DOMAIN_EXAMPLE.domainId },
    response: { ok: true, domain: SENDING_DOMAIN_EXAMPLE },
  },
} as const satisfies Operation;
