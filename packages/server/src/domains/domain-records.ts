// The DNS records a sending domain publishes (DESIGN.md §13), the one home of their names and
// values: what POST /v1/domains/add and get answer, what the checker expects (domains/dns-check.ts),
// and how the last check's findings are laid over them.
import type { DomainRecord } from '@mailsvc/contract/api';
import type { SendingDomainRow } from '../db/repositories/sending-domains.js';
import { dkimPublicKeyBase64, dkimTxtValue } from '../delivery/dkim.js';
import type { DmarcReport, DomainExpectation, RecordCheck } from './dns-check.js';

/** The operator's side of the records: where bounces are received, what SPF authorises. */
export interface RecordSettings {
  mxHost: string;
  spfMechanism: string;
}

export function recordSettings(config: {
  MAILSVC_INBOUND_MX_HOST: string;
  MAILSVC_RETURN_PATH_SPF: string;
  MAILSVC_BOUNCE_DOMAIN: string;
}): RecordSettings {
  return {
    mxHost: config.MAILSVC_INBOUND_MX_HOST.toLowerCase(),
    spfMechanism: config.MAILSVC_RETURN_PATH_SPF || `include:_spf.${config.MAILSVC_BOUNCE_DOMAIN}`,
  };
}

/** What the last check stored (sending_domains.last_check). */
export interface StoredCheck {
  records: RecordCheck[];
  dmarc: DmarcReport;
}

export const returnPathHost = (domain: string) => `bounces.${domain}`;
export const dkimHost = (selector: string, domain: string) => `${selector}._domainkey.${domain}`;
export const DMARC_RECOMMENDED = 'v=DMARC1; p=none';
/** Days a replaced DKIM selector keeps verifying after the signer moved on. */
export const DKIM_RETIRING_DAYS = 7;

/** A TXT value as the character-strings of at most 255 a zone file needs, when it needs several. */
export function txtStrings(value: string): string[] | undefined {
  if (value.length <= 255) return undefined;
  const out: string[] = [];
  for (let i = 0; i < value.length; i += 255) out.push(value.slice(i, i + 255));
  return out;
}

/** The selectors the checker looks at: the signing key, a rotation's next key, the retiring one. */
export function dkimSelectors(d: SendingDomainRow, now: Date) {
  const out: { purpose: 'dkim' | 'dkim_next' | 'dkim_retiring'; selector: string; publicKeyPem: string }[] =
    [];
  if (d.dkim_selector && d.dkim_public_key)
    out.push({ purpose: 'dkim', selector: d.dkim_selector, publicKeyPem: d.dkim_public_key });
  if (d.dkim_next_selector && d.dkim_next_public_key)
    out.push({ purpose: 'dkim_next', selector: d.dkim_next_selector, publicKeyPem: d.dkim_next_public_key });
  if (d.dkim_old_selector && d.dkim_old_public_key && d.dkim_old_until && d.dkim_old_until > now)
    out.push({
      purpose: 'dkim_retiring',
      selector: d.dkim_old_selector,
      publicKeyPem: d.dkim_old_public_key,
    });
  return out;
}

/** p= of each public key the checker expects, kept: exporting a PEM as DER is a key parse. */
const P_OF_PEM = new Map<string, string>();
function pOf(publicKeyPem: string): string {
  let p = P_OF_PEM.get(publicKeyPem);
  if (p === undefined) {
    if (P_OF_PEM.size >= 10_000) P_OF_PEM.clear();
    p = dkimPublicKeyBase64(publicKeyPem);
    P_OF_PEM.set(publicKeyPem, p);
  }
  return p;
}

/** What the checker looks for at this domain. */
export function expectationOf(d: SendingDomainRow, s: RecordSettings, now: Date): DomainExpectation {
  return {
    domain: d.domain,
    dkim: dkimSelectors(d, now).map((k) => ({
      selector: k.selector,
      publicKeyBase64: pOf(k.publicKeyPem),
    })),
    returnPath: { host: returnPathHost(d.domain), mxHost: s.mxHost, spfMechanism: s.spfMechanism },
  };
}

type Unchecked = Omit<DomainRecord, 'state' | 'found' | 'problems'>;

/** The records to publish, each as a DNS provider's form asks for it. */
export function recordsToPublish(d: SendingDomainRow, s: RecordSettings, now: Date): Unchecked[] {
  const out: Unchecked[] = dkimSelectors(d, now).map((k) => {
    const value = dkimTxtValue(k.publicKeyPem);
    const strings = txtStrings(value);
    return {
      purpose: k.purpose,
      required: k.purpose !== 'dkim_retiring',
      type: 'TXT',
      host: dkimHost(k.selector, d.domain),
      name: `${k.selector}._domainkey`,
      value,
      ...(strings && { txtStrings: strings }),
      selector: k.selector,
      ...(k.purpose === 'dkim_retiring' && { removableAt: d.dkim_old_until!.toISOString() }),
    };
  });
  const rp = returnPathHost(d.domain);
  out.push(
    {
      purpose: 'return_path_mx',
      required: true,
      type: 'MX',
      host: rp,
      name: 'bounces',
      value: s.mxHost,
      priority: 10,
    },
    {
      purpose: 'return_path_spf',
      required: true,
      type: 'TXT',
      host: rp,
      name: 'bounces',
      value: `v=spf1 ${s.spfMechanism} -all`,
    },
    {
      purpose: 'dmarc',
      required: false,
      type: 'TXT',
      host: `_dmarc.${d.domain}`,
      name: '_dmarc',
      value: DMARC_RECOMMENDED,
    },
  );
  return out;
}

/** The records with what the last check found for each ("pending" where it has not looked yet). */
export function recordsWithFindings(d: SendingDomainRow, s: RecordSettings, now: Date): DomainRecord[] {
  const check = d.last_check as StoredCheck | null;
  return recordsToPublish(d, s, now).map((r): DomainRecord => {
    if (r.purpose === 'dmarc') {
      const dm = check?.dmarc;
      return dm
        ? { ...r, state: dm.state, found: dm.found, problems: dm.problems }
        : { ...r, state: 'pending', found: [], problems: [] };
    }
    const hostType = (c: RecordCheck) => c.host === r.host && c.type === r.type;
    const purposeOf = (c: RecordCheck) =>
      c.purpose === 'dkim' ? c.selector === r.selector : c.purpose === r.purpose;
    const seen = check?.records.find((c) => hostType(c) && purposeOf(c));
    return seen
      ? { ...r, state: seen.state, found: seen.found, problems: seen.problems }
      : { ...r, state: 'pending', found: [], problems: [] };
  });
}
