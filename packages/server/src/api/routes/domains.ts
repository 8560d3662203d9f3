// POST /v1/domains/* (DESIGN.md §13): a tenant's sending domains, self-service; full keys only (the
// contract's default). Answers come from the stored checks: no route waits on DNS.
import type {
  AddDomainRequest,
  DeleteDomainRequest,
  GetDomainRequest,
  RotateDomainDkimRequest,
  VerifyDomainRequest,
} from '@mailsvc/contract/api';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import {
  addDomain,
  deleteDomain,
  getDomain,
  listDomains,
  rotateDomainDkim,
  verifyDomain,
} from '../../domain/domains/manage-domains.js';
import { authOf } from '../auth-hook.js';
import { apiRoute } from '../route.js';

const ACCESS = ['trial', 'project', 'environment'] as const;

export function domainRoutes(app: FastifyInstance, deps: Deps) {
  apiRoute(app, 'addDomain', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await addDomain(deps, authOf(req), req.body as AddDomainRequest)),
    }),
  });
  apiRoute(app, 'listDomains', {
    access: ACCESS,
    handler: async (req) => ({ ok: true, ...(await listDomains(deps, authOf(req))) }),
  });
  apiRoute(app, 'getDomain', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await getDomain(deps, authOf(req), (req.body as GetDomainRequest).domainId)),
    }),
  });
  apiRoute(app, 'verifyDomain', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await verifyDomain(deps, authOf(req), (req.body as VerifyDomainRequest).domainId)),
    }),
  });
  apiRoute(app, 'rotateDomainDkim', {
    access: ACCESS,
    handler: async (req) => ({
      ok: true,
      ...(await rotateDomainDkim(deps, authOf(req), (req.body as RotateDomainDkimRequest).domainId)),
    }),
  });
  apiRoute(app, 'deleteDomain', {
    access: ACCESS,
    handler: async (req) => {
      await deleteDomain(deps, authOf(req), (req.body as DeleteDomainRequest).domainId);
      return { ok: true };
    },
  });
}
