// One eligibility rule, two implementations: recipientRefusal() and recipientStateName() in
// TypeScript (POST /v1/send, the worker's re-check, the status endpoint) and
// recipient_refusal() / contact_status() in SQL (bulk sends, the contacts list), compared over a
// generated table of every recipient state and template category, on the real database.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecipientState } from '../src/db/recipient-state.js';
import type { TemplateCategory } from '../src/db/schema.js';
import { recipientRefusal, recipientStateName } from '../src/domain/recipients/eligibility.js';
import { createHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const NOW = new Date('2026-11-22T10:15:30.123Z');
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

// Each fact: absent, in the past, at this very instant, in the future (and for the
// unsubscribe/resubscribe pair, every order between them).
const INSTANTS = [null, at(-120), at(-60), NOW, at(60)];
const CATEGORIES: TemplateCategory[] = ['security', 'transactional', 'notification'];

function* states(): Generator<RecipientState | null> {
  yield null; // no recipients row at all
  for (const complainedAt of [null, at(-30)])
    for (const unsubscribedAt of INSTANTS)
      for (const resubscribedAt of INSTANTS)
        for (const cooldownUntil of INSTANTS)
          for (const suppressedUntil of INSTANTS)
            yield { complainedAt, unsubscribedAt, resubscribedAt, cooldownUntil, suppressedUntil };
}

describe('the eligibility rule in TypeScript and in SQL', () => {
  it('agrees on every recipient state and template category (refusal and reported state)', async () => {
    const cases = [...states()].flatMap((state) => CATEGORIES.map((category) => ({ state, category })));
    expect(cases.length).toBe(3 * (1 + 2 * 5 ** 4));
    const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;
    const payload = cases.map((c, n) => ({
      n,
      category: c.category,
      present: c.state !== null,
      complained_at: iso(c.state?.complainedAt),
      unsubscribed_at: iso(c.state?.unsubscribedAt),
      resubscribed_at: iso(c.state?.resubscribedAt),
      cooldown_until: iso(c.state?.cooldownUntil),
      suppressed_until: iso(c.state?.suppressedUntil),
    }));
    // As the bulk send does: a LEFT JOIN where a missing recipients row gives NULL facts.
    const { rows } = await sql<{ n: number; refusal: string | null; status: string }>`
      SELECT c.n,
             recipient_refusal(c.complained_at, c.unsubscribed_at, c.resubscribed_at,
                               c.cooldown_until, c.suppressed_until, c.category, ${NOW}) AS refusal,
             contact_status(c.complained_at, c.unsubscribed_at, c.resubscribed_at,
                            c.cooldown_until, c.suppressed_until, ${NOW}) AS status
        FROM jsonb_to_recordset(${JSON.stringify(payload)}::jsonb) AS c (
          n integer, category text, present boolean, complained_at timestamptz,
          unsubscribed_at timestamptz, resubscribed_at timestamptz, cooldown_until timestamptz,
          suppressed_until timestamptz)
       ORDER BY c.n`.execute(h.runtime.deps.db);
    expect(rows.length).toBe(cases.length);
    const mismatches = rows.flatMap((row) => {
      const c = cases[row.n]!;
      const refusal = recipientRefusal(c.state, c.category, NOW);
      const name = recipientStateName(c.state, NOW);
      const status = name === 'clear' ? 'active' : name;
      return row.refusal === refusal && row.status === status
        ? []
        : [{ case: c, ts: { refusal, status }, sql: { refusal: row.refusal, status: row.status } }];
    });
    expect(mismatches).toEqual([]);
    // The table exercises every outcome of both rules.
    expect(new Set(rows.map((r) => r.refusal))).toEqual(
      new Set([null, 'recipient_complained', 'recipient_unsubscribed', 'recipient_suppressed']),
    );
    expect(new Set(rows.map((r) => r.status))).toEqual(
      new Set(['active', 'complained', 'suppressed', 'cooldown', 'unsubscribed']),
    );
  });
});
