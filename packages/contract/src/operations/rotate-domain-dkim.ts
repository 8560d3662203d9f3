// POST /v1/domains/rotate-dkim: a new DKIM key at a new selector (the dkim_next record to publish); the signer switches to it once the checker verifies it, and the replaced selector keeps verifying for 7 days.
import { type Static, Type } from '@sinclair/typebox';
import { DomainId, SENDING_DOMAIN_EXAMPLE, SendingDomain } from './shared/domain.js';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import type { Operation } from './shared/operation.js';

export const RotateDomainDkimRequest = Type.Object({ domainId: DomainId }, { additionalProperties: false });
export type RotateDomainDkimRequest = Static<typeof RotateDomainDkimRequest>;

export const RotateDomainDkimResponse = Type.Object(
  { ok: Type.Literal(true), domain: SendingDomain },
  { additionalProperties: false },
);
export type RotateDomainDkimResponse = Static<typeof RotateDomainDkimResponse>;

export const rotateDomainDkim = {
  method: 'POST',
  path: '/v1/domains/rotate-dkim',
  sdk: 'domains.rotateDkim',
  summary: 'Start a DKIM key rotation (extension)',
  body: RotateDomainDkimRequest,
  response: RotateDomainDkimResponse,
  errors: [
    ...API_KEY_ERRORS,
    ...JSON_BODY_ERRORS,
    ...ACCESS_ERRORS,
    'domain_not_found',
    'dkim_rotation_conflict',
  ],
  example: {
    body: { domainId: SENDING_DOMAIN_EXAMPLE.domainId },
    response: { ok: true, domain: SENDING_DOMAIN_EXAMPLE },
  },
} as const satisfies Operation;
