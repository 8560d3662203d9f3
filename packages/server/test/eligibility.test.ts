// The eligibility rule of a recipient (DESIGN.md §5) lives once, in SQL
// (db/functions/recipient_refusal.sql): the accept, bulk sends, the worker's claim and every read
// that reports a state go through it. This is its table: recipient facts × template category →
// the refusal code, and the state the status endpoint and the contacts list report, on the real
// database (both backends).
import { createHarness, type Harness } from '@mailsvc/testkit/harness';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const NOW = new Date('2026-11-22T10:15:30.123Z');
/** minutes from NOW */
type Facts = Partial<
  Record<
    | 'complained'
    | 'unsubscribed'
    | 'resubscribed'
    | 'cooldownUntil'
    | 'suppressedUntil'
    | 'manualAt'
    | 'manualUntil',
    number
  >
>;
type Refusal = 'recipient_complained' | 'recipient_unsubscribed' | 'recipient_suppressed' | null;

interface Case {
  rule: string;
  /** null: the address has no recipients row */
  facts: Facts | null;
  /** the refusal for a security, a transactional and a notification template */
  refusal: [Refusal, Refusal, Refusal];
  status: 'active' | 'complained' | 'suppressed' | 'cooldown' | 'unsubscribed';
}

const C = 'recipient_complained';
const U = 'recipient_unsubscribed';
const S = 'recipient_suppressed';

const TABLE: Case[] = [
  {
    rule: 'an address never seen may be sent anything',
    facts: null,
    refusal: [null, null, null],
    status: 'active',
  },
  { rule: 'a row with no facts is clear', facts: {}, refusal: [null, null, null], status: 'active' },
  {
    rule: 'a complaint refuses every category',
    facts: { complained: -30 },
    refusal: [C, C, C],
    status: 'complained',
  },
  {
    rule: 'an unsubscribe refuses notifications only',
    facts: { unsubscribed: -60 },
    refusal: [null, null, U],
    status: 'unsubscribed',
  },
  {
    rule: 'a later resubscribe clears the unsubscribe',
    facts: { unsubscribed: -60, resubscribed: -30 },
    refusal: [null, null, null],
    status: 'active',
  },
  {
    rule: 'an unsubscribe after a resubscribe counts again',
    facts: { unsubscribed: -30, resubscribed: -60 },
    refusal: [null, null, U],
    status: 'unsubscribed',
  },
  {
    rule: 'a resubscribe at the same instant as the unsubscribe clears it',
    facts: { unsubscribed: -30, resubscribed: -30 },
    refusal: [null, null, null],
    status: 'active',
  },
  {
    rule: 'a running cooldown refuses every category',
    facts: { cooldownUntil: 60 },
    refusal: [S, S, S],
    status: 'cooldown',
  },
  {
    rule: 'a cooldown that ended refuses nothing',
    facts: { cooldownUntil: -1 },
    refusal: [null, null, null],
    status: 'active',
  },
  {
    rule: 'a cooldown ending at this instant has ended',
    facts: { cooldownUntil: 0 },
    refusal: [null, null, null],
    status: 'active',
  },
  {
    rule: 'a running suppression refuses every category',
    facts: { suppressedUntil: 600 },
    refusal: [S, S, S],
    status: 'suppressed',
  },
  {
    rule: 'a suppression is reported before a cooldown',
    facts: { suppressedUntil: 600, cooldownUntil: 60 },
    refusal: [S, S, S],
    status: 'suppressed',
  },
  {
    rule: 'a complaint comes before everything else',
    facts: { complained: -10, unsubscribed: -60, suppressedUntil: 600 },
    refusal: [C, C, C],
    status: 'complained',
  },
  {
    rule: 'an unsubscribed notification is refused as unsubscribed even in a cooldown',
    facts: { unsubscribed: -60, cooldownUntil: 60 },
    refusal: [S, S, U],
    status: 'cooldown',
  },
  {
    rule: 'an ended suppression leaves the unsubscribe',
    facts: { unsubscribed: -60, suppressedUntil: -5 },
    refusal: [null, null, U],
    status: 'unsubscribed',
  },
  {
    rule: 'a manual suppression without an end refuses every category',
    facts: { manualAt: -30 },
    refusal: [S, S, S],
    status: 'suppressed',
  },
  {
    rule: 'a manual suppression refuses until its end',
    facts: { manualAt: -30, manualUntil: 60 },
    refusal: [S, S, S],
    status: 'suppressed',
  },
  {
    rule: 'a manual suppression ending at this instant has ended',
    facts: { manualAt: -30, manualUntil: 0 },
    refusal: [null, null, null],
    status: 'active',
  },
  {
    rule: 'a manual suppression is reported before a cooldown, and an unsubscribed notification is refused as unsubscribed',
    facts: { manualAt: -30, cooldownUntil: 60, unsubscribed: -60 },
    refusal: [S, S, U],
    status: 'suppressed',
  },
  {
    rule: 'a complaint comes before a manual suppression',
    facts: { manualAt: -30, complained: -10 },
    refusal: [C, C, C],
    status: 'complained',
  },
];

const at = (minutes: number | undefined) =>
  minutes === undefined ? null : new Date(NOW.getTime() + minutes * 60_000).toISOString();

describe('the eligibility rule (recipient_refusal(), contact_status())', () => {
  it.each(TABLE)('$rule', async ({ facts, refusal, status }) => {
    const { rows } = await sql<{ category: string; refusal: Refusal; status: string }>`
      SELECT k.category,
             recipient_refusal(f.complained_at, f.unsubscribed_at, f.resubscribed_at,
                               f.cooldown_until, f.suppressed_until, f.manual_at, f.manual_until,
                               k.category, ${NOW}) AS refusal,
             contact_status(f.complained_at, f.unsubscribed_at, f.resubscribed_at,
                            f.cooldown_until, f.suppressed_until, f.manual_at, f.manual_until,
                            ${NOW}) AS status
        FROM unnest(ARRAY['security', 'transactional', 'notification']) WITH ORDINALITY AS k (category, ord)
        -- as every caller does: a LEFT JOIN where a missing recipients row gives NULL facts
        LEFT JOIN (SELECT ${at(facts?.complained)}::timestamptz AS complained_at,
                          ${at(facts?.unsubscribed)}::timestamptz AS unsubscribed_at,
                          ${at(facts?.resubscribed)}::timestamptz AS resubscribed_at,
                          ${at(facts?.cooldownUntil)}::timestamptz AS cooldown_until,
                          ${at(facts?.suppressedUntil)}::timestamptz AS suppressed_until,
                          ${at(facts?.manualAt)}::timestamptz AS manual_at,
                          ${at(facts?.manualUntil)}::timestamptz AS manual_until
                    WHERE ${facts !== null}) f ON true
       ORDER BY k.ord`.execute(h.runtime.deps.db);
    expect(rows.map((r) => r.refusal)).toEqual(refusal);
    expect(rows.map((r) => r.status)).toEqual([status, status, status]);
  });

  it('the table reaches every refusal and every state', () => {
    expect(new Set(TABLE.flatMap((c) => c.refusal))).toEqual(new Set([null, C, U, S]));
    expect(new Set(TABLE.map((c) => c.status))).toEqual(
      new Set(['active', 'complained', 'suppressed', 'cooldown', 'unsubscribed']),
    );
  });
});
