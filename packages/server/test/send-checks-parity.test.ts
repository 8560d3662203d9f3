// POST /v1/send's checks that need the database run in two places: in accept_messages() (SQL, the
// one round trip of a send that passes) and in send-email.ts (TypeScript, on the context read for
// a send that the accept refused, to answer with the exact error). Both must agree, or a send
// would be accepted with the wrong sending domain or From, or refused without an answer. This
// runs both over every arrangement of up to two custom sending domains (scope × status × age),
// four From choices and the recipient states that refuse, on the real database.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptMessages, readSendContexts } from '../src/db/repositories/send.js';
import type { TemplateCategory } from '../src/db/schema.js';
import type { AuthContext } from '../src/domain/auth/authenticate.js';
import type { Deps } from '../src/domain/deps.js';
import { recipientRefusal } from '../src/domain/recipients/eligibility.js';
import { checkSendingDomain, chooseSendingDomain, resolveSender } from '../src/domain/send/send-email.js';
import { ApiError } from '../src/errors.js';
import { newId } from '../src/ids.js';
import { acceptItem } from './accept-item.js';
import { createHarness, type Harness, type Scope, seedScope } from './harness.js';

let h: Harness;
let t: Scope;
let other: Scope;
let sibling: { projectId: string; environmentId: string };
let siblingEnv: string;

beforeAll(async () => {
  h = await createHarness();
  t = await seedScope(h);
  other = await seedScope(h);
  // another environment of the same project, and another project of the same tenant
  siblingEnv = (await h.admin('environments.create', { project: t.projectId, name: 'staging' })).environment
    .id;
  const { project } = await h.admin('projects.create', { tenant: t.tenantId, name: 'Other App' });
  const { environment } = await h.admin('environments.create', { project: project.id, name: 'production' });
  sibling = { projectId: project.id, environmentId: environment.id };
});
afterAll(() => h.close());

const NOW = new Date('2026-11-27T08:00:00.000Z');
const DEFAULT_DOMAIN = 'mailsvc.test';
type Kind = 'this-env' | 'other-env' | 'this-project' | 'other-project' | 'tenant' | 'other-tenant';
const KINDS: Kind[] = ['this-env', 'other-env', 'this-project', 'other-project', 'tenant', 'other-tenant'];
const STATUSES = ['pending', 'verified', 'failed'] as const;

interface DomainSpec {
  kind: Kind;
  status: (typeof STATUSES)[number];
  /** minutes after an epoch */
  age: number;
}

/**
 * Every ordered choice of up to two domains with every status (one domain per exact scope, as
 * sending_domains_one_per_scope allows; the older one first).
 */
function* arrangements(): Generator<DomainSpec[]> {
  yield [];
  for (const kind of KINDS) for (const status of STATUSES) yield [{ kind, status, age: 0 }];
  for (const a of KINDS)
    for (const b of KINDS)
      for (const sa of STATUSES)
        for (const sb of STATUSES)
          if (a !== b)
            yield [
              { kind: a, status: sa, age: 0 },
              { kind: b, status: sb, age: 1 },
            ];
}

function domainRow(spec: DomainSpec, name: string) {
  const scope = (() => {
    switch (spec.kind) {
      case 'this-env':
        return {
          tenant_id: t.tenantId,
          scope: 'environment' as const,
          project_id: t.projectId,
          environment_id: t.environmentId,
        };
      case 'other-env':
        return {
          tenant_id: t.tenantId,
          scope: 'environment' as const,
          project_id: t.projectId,
          environment_id: siblingEnv,
        };
      case 'this-project':
        return {
          tenant_id: t.tenantId,
          scope: 'project' as const,
          project_id: t.projectId,
          environment_id: null,
        };
      case 'other-project':
        return {
          tenant_id: t.tenantId,
          scope: 'project' as const,
          project_id: sibling.projectId,
          environment_id: null,
        };
      case 'tenant':
        return { tenant_id: t.tenantId, scope: 'tenant' as const, project_id: null, environment_id: null };
      case 'other-tenant':
        return {
          tenant_id: other.tenantId,
          scope: 'tenant' as const,
          project_id: null,
          environment_id: null,
        };
    }
  })();
  const at = new Date(Date.UTC(2026, 0, 1, 0, spec.age));
  return {
    id: newId('dom', at.getTime()),
    domain: name,
    status: spec.status,
    created_at: at,
    updated_at: at,
    ...scope,
  } as const;
}

const auth = (): AuthContext =>
  ({
    tenantId: t.tenantId,
    projectId: t.projectId,
    environmentId: t.environmentId,
    keyId: t.keyId,
    environment: { name: 'production', sender: { fromEmail: null, fromName: null, replyTo: null } },
    project: { sender: { fromEmail: null, fromName: null, replyTo: null } },
  }) as unknown as AuthContext;

interface Probe {
  to: string;
  category: TemplateCategory;
  /** the explicit From, or undefined for notifications@ the sending domain */
  from: string | undefined;
}

describe('the sending-domain, From and recipient checks of POST /v1/send in SQL and in TypeScript', () => {
  it('agree on every arrangement of custom domains, From and refusing recipient state', async () => {
    const db = h.runtime.deps.db;
    for (const [email, fields] of [
      ['complained@example.com', { complained_at: new Date('2026-11-01T00:00:00Z') }],
      ['unsubscribed@example.com', { unsubscribed_at: new Date('2026-11-01T00:00:00Z') }],
      ['cooling@example.com', { cooldown_until: new Date('2026-11-28T00:00:00Z') }],
    ] as const) {
      await db
        .insertInto('recipients')
        .values({ environment_id: t.environmentId, tenant_id: t.tenantId, email, ...fields })
        .execute();
    }
    const deps = { config: { MAILSVC_DEFAULT_SENDING_DOMAIN: DEFAULT_DOMAIN } } as unknown as Deps;
    let cases = 0;
    const verdicts = new Set<string>();
    for (const [n, specs] of [...arrangements()].entries()) {
      await sql`DELETE FROM sending_domains WHERE tenant_id IN (${t.tenantId}, ${other.tenantId})`.execute(
        db,
      );
      const names = specs.map((_, i) => `d${i}-${n}.parity.example`);
      if (specs.length)
        await db
          .insertInto('sending_domains')
          .values(specs.map((sp, i) => domainRow(sp, names[i]!)))
          .execute();

      const probes: Probe[] = [
        { to: `fresh-${n}@example.com`, category: 'security', from: undefined },
        ...names.map((d, i) => ({
          to: `on-${i}-${n}@example.com`,
          category: 'security' as const,
          from: `hello@${d}`,
        })),
        { to: `default-${n}@example.com`, category: 'transactional', from: `hello@${DEFAULT_DOMAIN}` },
        { to: `elsewhere-${n}@example.com`, category: 'transactional', from: 'hello@elsewhere.example' },
        { to: 'complained@example.com', category: 'security', from: undefined },
        { to: 'unsubscribed@example.com', category: 'notification', from: undefined },
        { to: 'unsubscribed@example.com', category: 'security', from: undefined },
        { to: 'cooling@example.com', category: 'transactional', from: undefined },
      ];

      // TypeScript: the context as the refused path reads it, and the checks in send-email.ts
      const contexts = await readSendContexts(
        db,
        probes.map((p) => ({
          tenantId: t.tenantId,
          projectId: t.projectId,
          environmentId: t.environmentId,
          email: p.to,
          idempotencyKey: undefined,
          now: NOW,
        })),
      );
      const expected = probes.map((p, i) => {
        const context = contexts[i]!;
        const { custom, sendingDomain } = chooseSendingDomain(deps, auth(), context.domains);
        const sender = resolveSender(auth(), p.from === undefined ? {} : { from: p.from }, sendingDomain);
        try {
          checkSendingDomain(custom, sendingDomain, sender);
        } catch (err) {
          if (err instanceof ApiError) return { outcome: 'refused', why: err.code };
          throw err;
        }
        const refusal = recipientRefusal(context.recipient, p.category, NOW);
        if (refusal) return { outcome: 'refused', why: refusal };
        return { outcome: 'accepted', from: sender.fromEmail, domain: sendingDomain };
      });

      // SQL: the same sends through accept_messages() with its checks
      const items = probes.map((p) =>
        acceptItem(t, NOW, {
          message: { category: p.category, toEmail: p.to, fromEmail: p.from ?? null, sendingDomain: null },
          checks: { defaultDomain: DEFAULT_DOMAIN },
        }),
      );
      const outcomes = await acceptMessages(db, items);
      const rows = await db
        .selectFrom('messages')
        .select(['id', 'from_email', 'sending_domain'])
        .where(
          'id',
          'in',
          items.map((it) => it.message.id),
        )
        .execute();
      const byId = new Map(rows.map((r) => [r.id, r]));
      const actual = items.map((it, i) => {
        const row = byId.get(it.message.id);
        if (outcomes[i]!.kind !== 'accepted') return { outcome: outcomes[i]!.kind, row: row ?? null };
        return { outcome: 'accepted', from: row?.from_email, domain: row?.sending_domain };
      });

      for (const [i, e] of expected.entries()) {
        const a = actual[i]!;
        const label = `arrangement ${JSON.stringify(specs)}, probe ${JSON.stringify(probes[i])}`;
        if (e.outcome === 'refused') expect(a, label).toEqual({ outcome: 'refused', row: null });
        else expect(a, label).toEqual(e);
        verdicts.add(
          e.outcome === 'refused'
            ? e.why!
            : `accepted via ${e.domain === DEFAULT_DOMAIN ? 'default' : 'custom'}`,
        );
        cases++;
      }
    }
    // the generated table reaches every verdict both sides can give
    expect([...verdicts].sort()).toEqual([
      'accepted via custom',
      'accepted via default',
      'from_domain_not_allowed',
      'recipient_complained',
      'recipient_suppressed',
      'recipient_unsubscribed',
      'sending_domain_not_ready',
    ]);
    expect(cases).toBeGreaterThan(2500);
  });
});
