// POST /v1/send's checks that need the database (DESIGN.md §3 steps 7 and 9) live once, in SQL:
// accept_messages() chooses the sending domain and the From through choose_sending_domain() and
// the recipient's verdict through recipient_refusal(), and answers the first refusal's code. This
// is the table of arrangements (custom domains by scope, status and age; the From; the
// recipient) → the verdict, through the accept itself, on the real database (both backends).
import { createHarness, type Harness, type Scope, seedScope } from '@mailsvc/testkit/harness';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptMessages, chooseSendingDomain } from '../src/db/repositories/send.js';
import type { TemplateCategory } from '../src/db/schema.js';
import { newId } from '../src/ids.js';
import { acceptItem } from './accept-item.js';

let h: Harness;
let t: Scope;
let other: Scope;
let siblingEnv: string;
let sibling: { projectId: string; environmentId: string };

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
});
afterAll(() => h.close());

const NOW = new Date('2026-11-27T08:00:00.000Z');
const DEFAULT = 'mailsvc.test';
type Kind = 'this-env' | 'other-env' | 'this-project' | 'other-project' | 'tenant' | 'other-tenant';
type Status = 'pending' | 'verified' | 'failed';
/** A custom domain: its scope relative to the sending key, its status; listed oldest first. */
type Domain = [Kind, Status];

interface Case {
  rule: string;
  domains: Domain[];
  /** 'd0', 'd1': the custom domain of that position; DEFAULT; or another address */
  from?: string;
  to?: string;
  category?: TemplateCategory;
  /** accepted: the sending domain and From stored on the message; else the refusal code */
  expect: { accepted: { domain: string; from: string } } | { refused: string; domain: string };
}

const TABLE: Case[] = [
  {
    rule: 'without a custom domain, the default domain and notifications@ it',
    domains: [],
    expect: { accepted: { domain: DEFAULT, from: `notifications@${DEFAULT}` } },
  },
  {
    rule: 'a From on the default domain is allowed',
    domains: [],
    from: `hello@${DEFAULT}`,
    expect: { accepted: { domain: DEFAULT, from: `hello@${DEFAULT}` } },
  },
  {
    rule: 'a From off the sending domain is refused',
    domains: [],
    from: 'hello@elsewhere.example',
    expect: { refused: 'from_domain_not_allowed', domain: DEFAULT },
  },
  {
    rule: "the environment's verified domain is chosen",
    domains: [['this-env', 'verified']],
    expect: { accepted: { domain: 'd0', from: 'notifications@d0' } },
  },
  {
    rule: "the environment's pending domain refuses the send",
    domains: [['this-env', 'pending']],
    expect: { refused: 'sending_domain_not_ready', domain: 'd0' },
  },
  {
    rule: "the environment's failed domain refuses the send",
    domains: [['this-env', 'failed']],
    expect: { refused: 'sending_domain_not_ready', domain: 'd0' },
  },
  {
    rule: "another environment's domain does not apply",
    domains: [['other-env', 'verified']],
    expect: { accepted: { domain: DEFAULT, from: `notifications@${DEFAULT}` } },
  },
  {
    rule: "the project's domain applies to its environments",
    domains: [['this-project', 'verified']],
    expect: { accepted: { domain: 'd0', from: 'notifications@d0' } },
  },
  {
    rule: "another project's domain does not apply",
    domains: [['other-project', 'verified']],
    expect: { accepted: { domain: DEFAULT, from: `notifications@${DEFAULT}` } },
  },
  {
    rule: "the tenant's domain applies to every environment",
    domains: [['tenant', 'verified']],
    expect: { accepted: { domain: 'd0', from: 'notifications@d0' } },
  },
  {
    rule: "another tenant's domain never applies",
    domains: [['other-tenant', 'verified']],
    expect: { accepted: { domain: DEFAULT, from: `notifications@${DEFAULT}` } },
  },
  {
    rule: "the environment's domain wins over an older tenant domain, even pending",
    domains: [
      ['tenant', 'verified'],
      ['this-env', 'pending'],
    ],
    expect: { refused: 'sending_domain_not_ready', domain: 'd1' },
  },
  {
    rule: "another environment's domain does not shadow the tenant's",
    domains: [
      ['other-env', 'verified'],
      ['tenant', 'verified'],
    ],
    expect: { accepted: { domain: 'd1', from: 'notifications@d1' } },
  },
  {
    rule: "the project's pending domain wins over the tenant's verified one",
    domains: [
      ['tenant', 'verified'],
      ['this-project', 'pending'],
    ],
    expect: { refused: 'sending_domain_not_ready', domain: 'd1' },
  },
  {
    rule: "the project's domain wins over the tenant's",
    domains: [
      ['tenant', 'pending'],
      ['this-project', 'verified'],
    ],
    expect: { accepted: { domain: 'd1', from: 'notifications@d1' } },
  },
  {
    rule: "the environment's domain wins over a newer project domain",
    domains: [
      ['this-env', 'verified'],
      ['this-project', 'verified'],
    ],
    expect: { accepted: { domain: 'd0', from: 'notifications@d0' } },
  },
  {
    rule: 'a From on the chosen custom domain is allowed',
    domains: [['this-env', 'verified']],
    from: 'hello@d0',
    expect: { accepted: { domain: 'd0', from: 'hello@d0' } },
  },
  {
    rule: "a From on another of the tenant's domains is refused",
    domains: [
      ['tenant', 'verified'],
      ['this-env', 'verified'],
    ],
    from: 'hello@d0',
    expect: { refused: 'from_domain_not_allowed', domain: 'd1' },
  },
  {
    rule: 'a From on the default domain is refused once a custom domain applies',
    domains: [['tenant', 'verified']],
    from: `hello@${DEFAULT}`,
    expect: { refused: 'from_domain_not_allowed', domain: 'd0' },
  },
  {
    rule: 'a domain that is not ready answers before the From',
    domains: [['this-env', 'pending']],
    from: 'hello@elsewhere.example',
    expect: { refused: 'sending_domain_not_ready', domain: 'd0' },
  },
  {
    rule: 'the sending domain answers before the recipient',
    domains: [['this-env', 'pending']],
    to: 'complained@example.com',
    expect: { refused: 'sending_domain_not_ready', domain: 'd0' },
  },
  {
    rule: 'a complained recipient is refused',
    domains: [],
    to: 'complained@example.com',
    expect: { refused: 'recipient_complained', domain: DEFAULT },
  },
  {
    rule: 'an unsubscribed recipient is refused a notification',
    domains: [],
    to: 'unsubscribed@example.com',
    category: 'notification',
    expect: { refused: 'recipient_unsubscribed', domain: DEFAULT },
  },
  {
    rule: 'an unsubscribed recipient is sent a security message',
    domains: [],
    to: 'unsubscribed@example.com',
    category: 'security',
    expect: { accepted: { domain: DEFAULT, from: `notifications@${DEFAULT}` } },
  },
  {
    rule: 'a recipient in a cooldown is refused',
    domains: [],
    to: 'cooling@example.com',
    category: 'transactional',
    expect: { refused: 'recipient_suppressed', domain: DEFAULT },
  },
];

function domainRow(kind: Kind, status: Status, name: string, age: number) {
  const scope = {
    'this-env': {
      tenant_id: t.tenantId,
      scope: 'environment',
      project_id: t.projectId,
      environment_id: t.environmentId,
    },
    'other-env': {
      tenant_id: t.tenantId,
      scope: 'environment',
      project_id: t.projectId,
      environment_id: siblingEnv,
    },
    'this-project': {
      tenant_id: t.tenantId,
      scope: 'project',
      project_id: t.projectId,
      environment_id: null,
    },
    'other-project': {
      tenant_id: t.tenantId,
      scope: 'project',
      project_id: sibling.projectId,
      environment_id: null,
    },
    tenant: { tenant_id: t.tenantId, scope: 'tenant', project_id: null, environment_id: null },
    'other-tenant': { tenant_id: other.tenantId, scope: 'tenant', project_id: null, environment_id: null },
  }[kind] as {
    tenant_id: string;
    scope: 'environment' | 'project' | 'tenant';
    project_id: string | null;
    environment_id: string | null;
  };
  const at = new Date(Date.UTC(2026, 0, 1, 0, age));
  return { id: newId('dom', at.getTime()), domain: name, status, created_at: at, updated_at: at, ...scope };
}

let n = 0;
describe('the sending-domain, From and recipient checks of POST /v1/send (accept_messages())', () => {
  it.each(TABLE)('$rule', async (c) => {
    const db = h.runtime.deps.db;
    n++;
    await sql`DELETE FROM sending_domains WHERE tenant_id IN (${t.tenantId}, ${other.tenantId})`.execute(db);
    // d0, d1 stand for the case's custom domains, named per case (a domain is unique across tenants)
    const names = c.domains.map((_, i) => `d${i}-${n}.checks.example`);
    const name = (s: string) => s.replace(/\bd(\d)\b/, (_, i) => names[Number(i)]!);
    if (c.domains.length)
      await db
        .insertInto('sending_domains')
        .values(c.domains.map(([kind, status], i) => domainRow(kind, status, names[i]!, i)))
        .execute();
    const item = acceptItem(t, NOW, {
      message: {
        category: c.category ?? 'security',
        toEmail: c.to ?? `fresh-${n}@example.com`,
        fromEmail: c.from === undefined ? null : name(c.from),
      },
    });
    const [outcome] = await acceptMessages(db, [item]);
    const row = await db
      .selectFrom('messages')
      .select(['from_email', 'sending_domain'])
      .where('id', '=', item.message.id)
      .executeTakeFirst();
    if ('accepted' in c.expect) {
      expect(outcome).toEqual({ kind: 'accepted' });
      expect(row).toEqual({
        sending_domain: name(c.expect.accepted.domain),
        from_email: name(c.expect.accepted.from),
      });
    } else {
      expect(outcome).toEqual({
        kind: 'refused',
        refusal: c.expect.refused,
        sendingDomain: name(c.expect.domain),
      });
      expect(row).toBeUndefined();
    }
    // A bulk send's job and a paused environment's answer read the same rule on its own.
    const chosen = await chooseSendingDomain(db, {
      tenantId: t.tenantId,
      projectId: t.projectId,
      environmentId: t.environmentId,
      fromEmail: item.message.fromEmail,
      defaultDomain: DEFAULT,
    });
    const domainRefusal =
      'refused' in c.expect && c.expect.refused.startsWith('recipient_')
        ? null
        : 'refused' in c.expect
          ? c.expect.refused
          : null;
    expect(chosen.refusal).toBe(domainRefusal);
  });

  it('the table reaches every verdict', () => {
    const verdicts = new Set(TABLE.map((c) => ('accepted' in c.expect ? 'accepted' : c.expect.refused)));
    expect([...verdicts].sort()).toEqual([
      'accepted',
      'from_domain_not_allowed',
      'recipient_complained',
      'recipient_suppressed',
      'recipient_unsubscribed',
      'sending_domain_not_ready',
    ]);
  });
});
