// POST /v1/domains/list: the sending domains the key's environment can use and manage: its own,
// its project's and its tenant's, most specific first (the one a send uses comes first).
import { type Static, Type } from '@sinclair/typebox';
import { SENDING_DOMAIN_EXAMPLE, SendingDomain } from './shared/domain.js';
import { ACCESS_ERRORS, API_KEY_ERRORS, JSON_BODY_ERRORS } from './shared/error-sets.js';
import type { Operation } from './shared/operation.js';

export const ListDomainsRequest = Type.Object({}, { additionalProperties: false });
export type ListDomainsRequest = Static<typeof ListDomainsRequest>;

export const ListDomainsResponse = Type.Object(
  {
    ok: Type.Literal(true),
    domains: Type.Array(SendingDomain, {
      description: 'the environment’s, then its project’s, then its tenant’s (at most one each)',
    }),
  },
  { additionalProperties: false },
);
export type ListDomainsResponse = Static<typeof ListDomainsResponse>;

export const listDomains = {
  method: 'POST',
  path: '/v1/domains/list',
  sdk: 'domains.list',
  summary: 'The sending domains of the key’s environment, project and tenant (extension)',
  body: ListDomainsRequest,
  response: ListDomainsResponse,
  errors: [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, ...ACCESS_ERRORS],
  example: { body: {}, response: { ok: true, domains: [SENDING_DOMAIN_EXAMPLE] } },
} as const satisfies Operation;
