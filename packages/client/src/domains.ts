// The sending domains of an environment, its project and its tenant (`POST /v1/domains/…`, a full
// key only) as the client's `domains` group: add one, publish the records it answers, and follow
// its status as the service's DNS checker sees them (docs/domains.md).
import type {
  AddDomainBody,
  AddDomainResult,
  DeleteDomainBody,
  DeleteDomainResult,
  GetDomainBody,
  GetDomainResult,
  ListDomainsResult,
  OperationId,
  RotateDomainDkimBody,
  RotateDomainDkimResult,
  VerifyDomainBody,
  VerifyDomainResult,
} from './generated/core.js';
import type { CallOptions } from './transport.js';

export interface DomainsApi {
  /** Claims a domain (for the environment, or `scope: 'project' | 'tenant'`); the answer's `records` are what to publish. */
  add(body: AddDomainBody, options?: CallOptions): Promise<AddDomainResult>;
  /** The environment's, its project's and its tenant's domains, the one a send uses first. */
  list(options?: CallOptions): Promise<ListDomainsResult>;
  /** One domain, each record with what the last check found (`state`, `found`, `problems`). */
  get(body: GetDomainBody, options?: CallOptions): Promise<GetDomainResult>;
  /** Asks the checker to look now (a failed domain starts over as pending). */
  verify(body: VerifyDomainBody, options?: CallOptions): Promise<VerifyDomainResult>;
  /** A new DKIM key to publish (`dkim_next`); the signer switches once it verifies. */
  rotateDkim(body: RotateDomainDkimBody, options?: CallOptions): Promise<RotateDomainDkimResult>;
  delete(body: DeleteDomainBody, options?: CallOptions): Promise<DeleteDomainResult>;
}

type Call = <T>(id: OperationId, body: unknown, options: CallOptions) => Promise<T>;

export function domainsApi(call: Call): DomainsApi {
  return {
    add: (body, opts = {}) => call('addDomain', body, opts),
    list: (opts = {}) => call('listDomains', {}, opts),
    get: (body, opts = {}) => call('getDomain', body, opts),
    verify: (body, opts = {}) => call('verifyDomain', body, opts),
    rotateDkim: (body, opts = {}) => call('rotateDomainDkim', body, opts),
    delete: (body, opts = {}) => call('deleteDomain', body, opts),
  };
}
