// Sending domains as the dev inbox reads them: the public half of a domain's DKIM key, which is
// the TXT record published at <selector>._domainkey.<domain>.
import type { Db } from '../schema.js';

/** The public key (PEM) of `domain`'s DKIM selector, whatever the domain's status; null if none. */
export async function findDkimPublicKey(db: Db, domain: string, selector: string): Promise<string | null> {
  const row = await db
    .selectFrom('sending_domains')
    .select('dkim_public_key')
    .where('domain', '=', domain.toLowerCase())
    .where('dkim_selector', '=', selector)
    .where('dkim_public_key', 'is not', null)
    .executeTakeFirst();
  return row?.dkim_public_key ?? null;
}
