// POST /v1/domains/add: claims a sending domain for the key's environment, or (scope) its project
// or tenant, and answers the DNS records to publish (DESIGN.md §13). The domain is pending until
// the worker's checker sees its DKIM record; a name another tenant has verified is refused.
import { type Static, Type } from '@sinclair/typebox';
import { DomainName, DomainScopeSchema, SENDING_DOMAIN_EXAMPLE, SendingDomain } from './shared/domain.js';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import type { Operation } from './shared/operation.js';

export const AddDomainRequest = Type.Object(
  { domain: DomainName, scope: Type.Optional(DomainScopeSchema) },
  { additionalProperties: false },
);
export type AddDomainRequest = Static<typeof AddDomainRequest>;

export const AddDomainResponse = Type.Object(
  { ok: Type.Literal(true), domain: SendingDomain },
  { additionalProperties: false },
);
export type AddDomainResponse = Static<typeof AddDomainResponse>;

export const addDomain = {
  method: 'POST',
  path: '/v1/domains/add',
  sdk: 'domains.add',
  summary: 'Add a sending domain and get its DNS records (extension)',
  body: AddDomainRequest,
  response: AddDomainResponse,
  errors: [
    ...API_KEY_ERRORS,
    ...JSON_BODY_ERRORS,
    ...ACCESS_ERRORS,
    'domain_already_added',
    'domain_claimed',
  ],
  example: {
    body: { domain: 'example.com' },
    response: {
      ok: true,
      domain: {
        ...SENDING_DOMAIN_EXAMPLE,
        status: 'pending',
        statusSince: SENDING_DOMAIN_EXAMPLE.createdAt,
        returnPath: { host: 'bounces.example.com', status: 'pending' },
        records: SENDING_DOMAIN_EXAMPLE.records.map((r) => ({
          ...r,
          state: 'pending',
          found: [],
          problems: [],
        })),
        dmarc: null,
        verifiedAt: null,
        lastCheckedAt: null,
        nextCheckAt: '2026-11-22T10:16:30.123Z',
      },
    },
  },
} as const satisfies Operation;
