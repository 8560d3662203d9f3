// The Checks tab's DKIM result: mailauth's verifier, with a resolver that answers the selector's
// TXT record from the database (the public key mailsvc generated for the sending domain) instead
// of DNS: a captured message is checked against the key you are asked to publish, offline.
import { createRequire } from 'node:module';
import { dkimTxtValue } from '../../delivery/dkim.js';

interface MailauthDkimResult {
  signingDomain?: string;
  selector?: string;
  status: { result: string; comment?: string };
  signingHeaders?: { keys: string };
}
type DkimVerify = (
  raw: Buffer,
  opts: { resolver: (name: string, type: string) => Promise<string[][]> },
) => Promise<{ results: MailauthDkimResult[] }>;

let verifier: DkimVerify | undefined;
/** Loaded on the first check: nothing else in the server needs mailauth. */
function dkimVerify(): DkimVerify {
  verifier ??= (createRequire(import.meta.url)('mailauth/lib/dkim/verify') as { dkimVerify: DkimVerify })
    .dkimVerify;
  return verifier;
}

export interface DkimSignatureCheck {
  domain: string;
  selector: string;
  /** mailauth's verdict: pass, fail, neutral, temperror, permerror, policy. */
  result: string;
  /** Whether the database had a public key for the selector. */
  hasKey: boolean;
  /** The header fields the signature covers, lower case (h=). */
  signedHeaders: string[];
  explanation: string;
}

export interface DkimCheck {
  /** `none` when the message carries no DKIM-Signature; else the first signature's result. */
  result: string;
  signatures: DkimSignatureCheck[];
  explanation: string;
}

/**
 * Why a check could not run. `database`: `findPublicKey` failed (mailauth would report that as a
 * DNS temperror, and the page as a missing key; it is neither). `message`: the verifier threw on
 * the message itself (a DKIM-Signature it cannot parse); retrying will not change that.
 */
export class DkimCheckError extends Error {
  constructor(
    readonly reason: 'database' | 'message',
    cause: unknown,
  ) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    super(reason === 'database' ? `the sending domains’ public keys could not be read: ${detail}` : detail, {
      cause,
    });
  }
}

/**
 * `findPublicKey` answers a selector's public key (PEM) from the sending domains, or null;
 * `fromDomain` (the From address's domain) names the domain in the explanation of an unsigned message.
 */
export async function checkDkim(
  raw: Buffer,
  findPublicKey: (domain: string, selector: string) => Promise<string | null>,
  fromDomain?: string,
): Promise<DkimCheck> {
  const keysFound = new Set<string>();
  let lookupFailure: { err: unknown } | undefined;
  const resolver = async (name: string, type: string): Promise<string[][]> => {
    const at = name.toLowerCase().indexOf('._domainkey.');
    if (type === 'TXT' && at > 0) {
      const selector = name.slice(0, at);
      const domain = name.slice(at + '._domainkey.'.length).replace(/\.$/, '');
      let pem: string | null;
      try {
        pem = await findPublicKey(domain, selector);
      } catch (err) {
        lookupFailure ??= { err };
        throw err;
      }
      if (pem) {
        keysFound.add(`${selector}@${domain.toLowerCase()}`);
        return [[dkimTxtValue(pem)]];
      }
    }
    throw Object.assign(new Error(`no record for ${name}`), { code: 'ENOTFOUND' });
  };
  let results: MailauthDkimResult[];
  try {
    ({ results } = await dkimVerify()(raw, { resolver }));
  } catch (err) {
    throw lookupFailure
      ? new DkimCheckError('database', lookupFailure.err)
      : new DkimCheckError('message', err);
  }
  if (lookupFailure) throw new DkimCheckError('database', lookupFailure.err);
  const signatures = results
    .filter((r) => r.signingDomain)
    .map((r): DkimSignatureCheck => {
      const domain = r.signingDomain!;
      const selector = r.selector ?? '';
      const hasKey = keysFound.has(`${selector}@${domain.toLowerCase()}`);
      const record = `${selector}._domainkey.${domain}`;
      const comment = r.status.comment ? ` (${r.status.comment})` : '';
      return {
        domain,
        selector,
        result: r.status.result,
        hasKey,
        signedHeaders: (r.signingHeaders?.keys ?? '')
          .split(/[:\s]+/)
          .filter(Boolean)
          .map((h) => h.toLowerCase()),
        explanation: !hasKey
          ? `Signed by ${domain} with selector ${selector}, but the database has no public key for ${record} (the domain was removed, or its key replaced): it cannot be checked here.`
          : r.status.result === 'pass'
            ? `Verified with the public key of ${record} from the database: the TXT record to publish.`
            : `Does not verify with the public key of ${record} from the database${comment}.`,
      };
    });
  if (signatures.length === 0) {
    return {
      result: 'none',
      signatures,
      explanation: `Not signed. mailsvc signs with a sending domain’s key once the domain is registered and marked verified (mailsvc admin domains add, then domains set-status)${fromDomain ? `; ${fromDomain} is not` : ''}.`,
    };
  }
  return { result: signatures[0]!.result, signatures, explanation: signatures[0]!.explanation };
}
