// Embedded mode after a crash: the process that holds the PGlite lock is the only worker there
// can be, so messages a dead process had claimed go out at start-up, not when their lease ends.

import { bearer, createHarness, type Harness, type Scope, seedScope } from '@mailsvc/testkit/harness';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDelivery } from '../src/cli/worker.js';
import { claimMessages } from '../src/db/repositories/queue.js';

let h: Harness;
let s: Scope;

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h);
});
afterAll(() => h.close());

const message = (id: string) =>
  h.runtime.deps.db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

it('delivers at start-up the messages a dead process had claimed, without waiting for their lease', async () => {
  const res = await h.request({
    method: 'POST',
    url: '/v1/send',
    headers: { ...bearer(s.apiKey), 'content-type': 'application/json' },
    payload: JSON.stringify({ templateId: 'login-code', to: 'crash@example.com', data: { code: '123456' } }),
  });
  const id = res.json().messageId as string;
  const now = h.clock.now();
  // The process that claimed it was killed: its 5-minute lease is still running.
  const [claimed] = await claimMessages(h.runtime.deps.db, {
    now,
    limit: 1,
    lockedUntil: new Date(now.getTime() + 5 * 60_000),
    claimToken: 'dead-process',
  });
  expect(claimed?.id).toBe(id);

  const delivery = await startDelivery(h.runtime.deps, { isSoleWorker: true });
  try {
    const deadline = Date.now() + 10_000;
    while ((await message(id)).status !== 'sent' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await message(id)).toMatchObject({ status: 'sent', attempts: 1 });
  } finally {
    await delivery.stop();
  }
});
