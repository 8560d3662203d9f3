// A sending domain's name as a tenant or the operator gives it: normalised, and refused when it is
// not a domain or is one of the service's own (the one rule for POST /v1/domains/add and
// `mailsvc admin domains add`).
import type { Config } from '../../config.js';
import { DKIM_SELECTOR_MAX_LENGTH } from '../../delivery/dkim.js';
import { dkimHost } from '../../domains/domain-records.js';
import { ApiError } from '../../errors.js';
import { parseDomain } from '../email.js';

/** 253 (a DNS name) less the longest DKIM record prefix, `mailsvc-YYYYMM-xxxxxxxxx._domainkey.` (36). */
export const MAX_DOMAIN_LENGTH = 253 - dkimHost('x'.repeat(DKIM_SELECTOR_MAX_LENGTH), '').length;

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
  // Its longest record name, a rotation's `mailsvc-YYYYMM-<base 36 time>._domainkey.<domain>`,
  // must be a DNS name (at most 253 characters), or the domain could never verify.
  if (domain.length > MAX_DOMAIN_LENGTH) {
    throw new ApiError('invalid_request', 'The domain name is too long for its DNS records.', [
      {
        path: '/domain',
        message: `must be at most ${MAX_DOMAIN_LENGTH} characters, so that its DKIM record's name (mailsvc-…._domainkey.<domain>) fits DNS's 253`,
      },
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
