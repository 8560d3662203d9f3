import { randomBytes } from 'node:crypto';
import type { Db } from '../schema.js';

/** A random 32-byte secret shared by every replica: created by whichever process asks first. */
export async function loadOrCreateServiceSecret(db: Db, name: string): Promise<Buffer> {
  await db
    .insertInto('service_secrets')
    .values({ name, value: randomBytes(32) })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db
    .selectFrom('service_secrets')
    .select('value')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return row.value;
}
