// The operator's recipient commands (show, suppress, unsuppress, clear-complaint) and the audit
// trail: each change audited in the same transaction as the change.

import { bearer, createHarness, type Harness, type Scope, seedScope } from '@mailsvc/testkit/harness';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordComplaint, recordHardBounce } from '../src/db/repositories/recipients.js';
import { BOUNCE_POLICY } from '../src/domain/recipients/bounce-policy.js';

let h: Harness;
let s: Scope;

beforeAll(async () => {
  h = await createHarness();
  s = await seedScope(h);
});
afterAll(() => h.close());

const send = (to: string) =>
  h.request({
    method: 'POST',
    url: '/v1/send',
    headers: { ...bearer(s.apiKey), 'content-type': 'application/json' },
    payload: JSON.stringify({ templateId: 'login-code', to, data: { code: '482913' } }),
  });
async function sent(to: string): Promise<string> {
  const res = await send(to);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().messageId;
}
type Status = { recipient: { state: string; delivery: Record<string, unknown> } };
const admin = (name: string, input: Record<string, unknown>) => h.admin(name, input) as Promise<Status>;
const audit = (action: string) =>
  h.runtime.deps.db
    .selectFrom('audit_events')
    .selectAll()
    .where('tenant_id', '=', s.tenantId)
    .where('action', '=', action)
    .execute();

describe('admin recipients', () => {
  it('shows a recipient as the status endpoint does', async () => {
    const to = 'shown@example.com';
    await recordComplaint(h.runtime.deps.db, await sent(to), h.clock.now());
    const shown = await admin('recipients.show', { environment: s.environmentId, email: to });
    expect(shown.recipient).toMatchObject({ emailMasked: 's***@example.com', state: 'complained' });
  });

  it('clears a complaint (the lifetime count stays), audited with the state before', async () => {
    const to = 'forgiven@example.com';
    await recordComplaint(h.runtime.deps.db, await sent(to), h.clock.now());
    expect((await send(to)).json().error.code).toBe('recipient_complained');
    const after = await admin('recipients.clear-complaint', { environment: s.environmentId, email: to });
    expect(after.recipient).toMatchObject({
      state: 'clear',
      delivery: { complaintCount: 1, complainedAt: null },
    });
    expect((await send(to)).statusCode).toBe(200);
    const [event] = await audit('recipient.complaint_cleared');
    expect(event).toMatchObject({ actor: 'test', target_id: `${s.environmentId}:f***@example.com` });
    expect(event!.details).toMatchObject({ previousState: 'complained', hasChanged: true });
  });

  it('suppresses a recipient for --days, refusing every template, and unsuppresses it', async () => {
    const to = 'paused@example.com';
    const suppressed = await admin('recipients.suppress', {
      environment: s.environmentId,
      email: to,
      days: 2,
    });
    expect(suppressed.recipient.state).toBe('suppressed');
    expect((await send(to)).json().error.code).toBe('recipient_suppressed');
    const cleared = await admin('recipients.unsuppress', { environment: s.environmentId, email: to });
    expect(cleared.recipient.state).toBe('clear');
    expect((await send(to)).statusCode).toBe(200);
    expect((await audit('recipient.suppressed'))[0]!.details).toMatchObject({
      days: 2,
      previousState: 'clear',
    });
    expect((await audit('recipient.unsuppressed'))[0]!.details).toMatchObject({
      previousState: 'suppressed',
    });
  });

  it('unsuppress restarts the bounce streak: the next bounce cools down 24 h, not doubled', async () => {
    const to = 'restart@example.com';
    for (let i = 0; i < 3; i++) {
      await recordHardBounce(h.runtime.deps.db, await sentDespiteCooldown(to), h.clock.now(), BOUNCE_POLICY);
      h.clock.advance(3_600_000);
    }
    expect(
      (await admin('recipients.show', { environment: s.environmentId, email: to })).recipient.state,
    ).toBe('suppressed');
    await admin('recipients.unsuppress', { environment: s.environmentId, email: to });
    const id = await sent(to);
    const now = h.clock.now();
    await recordHardBounce(h.runtime.deps.db, id, now, BOUNCE_POLICY);
    const after = await admin('recipients.show', { environment: s.environmentId, email: to });
    expect(after.recipient).toMatchObject({
      state: 'cooldown',
      delivery: { hardBounceCount: 4, cooldownUntil: new Date(now.getTime() + 24 * 3_600_000).toISOString() },
    });
  });

  it('writes nothing when the audit event cannot be written (one transaction)', async () => {
    const db = h.runtime.deps.db;
    await sql`CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'audit refused'; END $$`.execute(db);
    await sql`CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_events FOR EACH ROW
      WHEN (NEW.action = 'recipient.suppressed') EXECUTE FUNCTION refuse_audit()`.execute(db);
    try {
      await expect(
        admin('recipients.suppress', { environment: s.environmentId, email: 'atomic@example.com' }),
      ).rejects.toThrow();
      const row = await db
        .selectFrom('recipients')
        .selectAll()
        .where('environment_id', '=', s.environmentId)
        .where('email', '=', 'atomic@example.com')
        .executeTakeFirst();
      expect(row).toBeUndefined();
    } finally {
      await sql`DROP TRIGGER refuse_audit ON audit_events`.execute(db);
      await sql`DROP FUNCTION refuse_audit()`.execute(db);
    }
  });

  it('refuses an unknown environment (not_found) and an invalid address (invalid_request)', async () => {
    await expect(
      admin('recipients.show', { environment: `env_${'0'.repeat(26)}`, email: 'x@example.com' }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      admin('recipients.suppress', { environment: s.environmentId, email: 'nope' }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });
});

describe('admin audit list', () => {
  it("lists a tenant's events newest first, from --since, at most --limit, with addresses masked", async () => {
    const all = (await h.admin('audit.list', { tenant: s.tenantId })) as {
      events: { at: string; action: string; targetId: string }[];
    };
    expect(all.events.length).toBeGreaterThan(3);
    const times = all.events.map((e) => e.at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(JSON.stringify(all)).not.toMatch(/forgiven@|paused@|restart@/);
    const two = (await h.admin('audit.list', { tenant: s.tenantId, limit: 2 })) as { events: unknown[] };
    expect(two.events).toHaveLength(2);
    const since = (await h.admin('audit.list', { tenant: s.tenantId, since: times[0] })) as {
      events: { at: string }[];
    };
    expect(since.events.every((e) => e.at >= times[0]!)).toBe(true);
    expect(since.events.length).toBeLessThan(all.events.length);
  });
});

/** A send to an address in cooldown is refused: bounce a message accepted before, directly. */
async function sentDespiteCooldown(to: string): Promise<string> {
  const res = await send(to);
  if (res.statusCode === 200) return res.json().messageId;
  const row = await h.runtime.deps.db
    .selectFrom('messages')
    .select('id')
    .where('to_email', '=', to)
    .orderBy('created_at', 'desc')
    .executeTakeFirstOrThrow();
  return row.id;
}
