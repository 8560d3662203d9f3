// What the client's tests against a real server share.

import type { Harness } from '@mailsvc/testkit/harness';
import { expect } from 'vitest';
import { MailsvcError } from '../src/index.js';

/** The messages stored for an address, as (id, template). */
export const messagesTo = (h: Harness, to: string) =>
  h.runtime.deps.db.selectFrom('messages').select(['id', 'template_id']).where('to_email', '=', to).execute();

/** The MailsvcError a call rejects with (the test fails if it resolves or throws anything else). */
export async function failure(p: Promise<unknown>): Promise<MailsvcError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(MailsvcError);
    return err as MailsvcError;
  }
  throw new Error('the call succeeded');
}
