// A sending domain's name as a tenant or the operator gives it: normalised, and refused when it is
// not a domain or is one of the service's own (the one rule for POST /v1/domains/add and
// `mailsvc admin domains add`).
import type { Config } from '../../config.js';
import { ApiError } from '../../errors.js';
import { parseDomain } from '../email.js';

export function checkDomainName(
  config: Pick<Config, 'MAILSVC_DEFAULT_SENDING_DOMAIN' | 'MAILSVC_BOUNCE_DOMAIN'>,
  name: string,
): string {
  const domain = parseDomain(name.endsWith('.') ? name.slice(0, -1) : name);
  if (!domain?.includes('.')) {
    throw new ApiError('invalid_request', 'Not a domain name.', [
      { path: '/domain', message: 'must be a domain such as mail.example.com' },
    ]);
  }
  // The service's own domains sign and receive everyone's mail: a tenant registering one (or a
  // subdomain) would sign other tenants' default-domain mail with its key.
  for (const reserved of new Set([config.MAILSVC_DEFAULT_SENDING_DOMAIN, config.MAILSVC_BOUNCE_DOMAIN])) {
    if (domain === reserved || domain.endsWith(`.${reserved}`)) {
      throw new ApiError('invalid_request', `${domain} belongs to the service and cannot be registered.`, [
        { path: '/domain', message: `must not be ${reserved} or one of its subdomains (the service's own)` },
      ]);
    }
  }
  return domain;
}
