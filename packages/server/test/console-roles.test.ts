// What each member role may call through a console credential (@mailsvc/contract/roles), generated
// from the contract: every API-key operation × every role, on the member's own environment; and a
// credential never reaches another tenant's records or a project the member is not limited to.
import { type OperationId, operations } from '@mailsvc/contract/api';
import { LEAST_ROLE, MEMBER_ROLES, type MemberRole, roleAllows } from '@mailsvc/contract/roles';
import { type ConsoleSession, signInNewMember } from '@mailsvc/testkit/console-session';
import { createHarness, type Harness, postJson, type Scope, seedScope } from '@mailsvc/testkit/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let h: Harness;
let s: Scope;
let other: Scope;
const sessions = new Map<MemberRole, ConsoleSession>();

beforeAll(async () => {
  h = await createHarness({ env: { MAILSVC_TRUST_PROXY: 'true' } });
  s = await seedScope(h, { monthlyLimit: 100_000 });
  other = await seedScope(h);
  for (const role of MEMBER_ROLES) sessions.set(role, await signInNewMember(h, s.tenantId, role));
});
afterAll(() => h.close());

const keyed = (Object.keys(operations) as OperationId[]).filter(
  (id) => (operations[id] as { auth?: string }).auth === undefined,
);

function call(id: OperationId, apiKey: string) {
  const op = operations[id];
  const body = 'example' in op && op.example && 'body' in op.example ? op.example.body : undefined;
  return h.request({
    method: op.method,
    url: op.path,
    headers: {
      authorization: `Bearer ${apiKey}`,
      ...(op.method === 'POST' && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { payload: JSON.stringify(body) }),
  });
}

describe('member roles through console credentials', () => {
  it('names a least role for every API-key operation', () => {
    expect(keyed.filter((id) => !(id in LEAST_ROLE))).toEqual([]);
  });

  it('allows each role exactly what it may call (every operation × every role)', async () => {
    for (const role of MEMBER_ROLES) {
      const apiKey = await sessions.get(role)!.credential(s.environmentId);
      for (const id of keyed) {
        const res = await call(id, apiKey);
        const code = res.statusCode === 200 ? 'ok' : res.json().error.code;
        if (roleAllows(role, id)) expect(code, `${role} on ${id}`).not.toBe('insufficient_role');
        else expect([res.statusCode, code], `${role} on ${id}`).toEqual([403, 'insufficient_role']);
      }
    }
  });

  it('audits a member’s change as the member, not the credential', async () => {
    const dev = sessions.get('developer')!;
    const apiKey = await dev.credential(s.environmentId);
    const res = await postJson(h, apiKey, '/v1/keys/create', { scope: 'send', name: 'by a member' });
    expect(res.statusCode, res.body).toBe(200);
    const events = (await postJson(h, s.apiKey, '/v1/audit/list', { action: ['api_key.created'] })).json()
      .events as {
      actor: string;
      targetId: string;
    }[];
    expect(events.find((e) => e.targetId === res.json().key.keyId)?.actor).toBe(`member:${dev.memberId}`);
  });

  it('keeps console credentials out of the key list, and answers another tenant’s records as not found', async () => {
    const owner = sessions.get('owner')!;
    const apiKey = await owner.credential(s.environmentId);
    const keys = (await postJson(h, apiKey, '/v1/keys/list', {})).json().keys as { name: string | null }[];
    expect(keys.map((k) => k.name)).not.toContain('console session');
    const sent = await postJson(h, other.apiKey, '/v1/send', {
      templateId: 'login-code',
      to: 'someone@example.com',
      data: { code: '123456' },
    });
    const foreign = await postJson(h, apiKey, '/v1/messages/get', { messageId: sent.json().messageId });
    expect([foreign.statusCode, foreign.json().error.code]).toEqual([404, 'message_not_found']);
    const cred = await owner.post('/console/api/credentials', { environmentId: other.environmentId });
    expect([cred.statusCode, cred.json().error.code]).toEqual([404, 'environment_not_found']);
  });

  it('lets each role take exactly the console’s own actions it may, in its tenant, and none in another (every action × every role)', async () => {
    const foreign = await signInNewMember(h, other.tenantId, 'owner');
    const target = (
      await h.admin('members.invite', {
        tenant: s.tenantId,
        email: 'matrix-target@example.com',
        role: 'viewer',
      })
    ).member.id as string;
    const otherTarget = (
      await h.admin('members.invite', {
        tenant: other.tenantId,
        email: 'matrix-other@example.com',
        role: 'viewer',
      })
    ).member.id as string;
    // [action, body for a tenant, least role allowed] — updates and removals aimed at a viewer.
    const actions: [string, (tenantId: string, memberId: string) => unknown, MemberRole][] = [
      ['/console/api/members/list', (tenantId) => ({ tenantId }), 'viewer'],
      [
        '/console/api/members/invite',
        (tenantId) => ({ tenantId, email: `m-${Math.random()}@example.com`, role: 'viewer' }),
        'admin',
      ],
      [
        '/console/api/members/update',
        (tenantId, memberId) => ({ tenantId, memberId, role: 'viewer' }),
        'admin',
      ],
      ['/console/api/credentials', () => ({ environmentId: s.environmentId }), 'viewer'],
    ];
    const rank = (r: MemberRole) => MEMBER_ROLES.indexOf(r);
    for (const role of MEMBER_ROLES) {
      const session = sessions.get(role)!;
      for (const [url, body, least] of actions) {
        const own = await session.post(url, body(s.tenantId, target));
        const allowed = rank(role) >= rank(least);
        expect([own.statusCode, allowed], `${role} ${url} in its tenant: ${own.body}`).toEqual([
          allowed ? 200 : 403,
          allowed,
        ]);
        const theirs = await session.post(url, {
          ...(body(other.tenantId, otherTarget) as object),
          ...(url.endsWith('credentials') && { environmentId: other.environmentId }),
        });
        expect(theirs.statusCode, `${role} ${url} in another tenant: ${theirs.body}`).toBe(404);
      }
    }
    // the other tenant's owner reaches nothing of this one
    const remove = await foreign.post('/console/api/members/remove', {
      tenantId: s.tenantId,
      memberId: target,
    });
    expect(remove.statusCode).toBe(404);
  });

  it('limits a member to its projects: another project’s environment is not found, its own answers', async () => {
    const { project } = await h.admin('projects.create', { tenant: s.tenantId, name: 'Second App' });
    const { environment } = await h.admin('environments.create', { project: project.id, name: 'production' });
    const owner = sessions.get('owner')!;
    const invited = await owner.post('/console/api/members/invite', {
      tenantId: s.tenantId,
      email: 'limited@example.com',
      role: 'developer',
      projectIds: [project.id],
    });
    expect(invited.statusCode, invited.body).toBe(200);
    const { signIn } = await import('@mailsvc/testkit/console-session');
    const limited = await signIn(h, 'limited@example.com');
    const me = (
      await h.request({ method: 'GET', url: '/console/api/me', headers: { cookie: limited.cookie } })
    ).json();
    expect(me.memberships[0].projects.map((p: { id: string }) => p.id)).toEqual([project.id]);
    const mine = await limited.credential(environment.id);
    expect((await postJson(h, mine, '/v1/messages/list', {})).statusCode).toBe(200);
    const notMine = await limited.post('/console/api/credentials', { environmentId: s.environmentId });
    expect([notMine.statusCode, notMine.json().error.code]).toEqual([404, 'environment_not_found']);
  });

  it('lets members below admin create send keys only (a full key would outlive them and pass no role check)', async () => {
    for (const role of MEMBER_ROLES.filter((r) => r !== 'viewer')) {
      const apiKey = await sessions.get(role)!.credential(s.environmentId);
      const full = await postJson(h, apiKey, '/v1/keys/create', { scope: 'full', name: `${role} full` });
      const send = await postJson(h, apiKey, '/v1/keys/create', { scope: 'send', name: `${role} send` });
      expect([full.statusCode, send.statusCode], role).toEqual(
        role === 'developer' ? [403, 200] : [200, 200],
      );
    }
  });

  it('keeps a member limited to some projects out of the team and of tenant-wide domains', async () => {
    const { project } = await h.admin('projects.create', { tenant: s.tenantId, name: 'Limited App' });
    const { environment } = await h.admin('environments.create', { project: project.id, name: 'production' });
    const owner = sessions.get('owner')!;
    for (const [email, role] of [
      ['limited-admin@example.com', 'admin'],
      ['limited-dev@example.com', 'developer'],
    ] as const)
      await owner.post('/console/api/members/invite', {
        tenantId: s.tenantId,
        email,
        role,
        projectIds: [project.id],
      });
    const { signIn } = await import('@mailsvc/testkit/console-session');
    const admin = await signIn(h, 'limited-admin@example.com');
    const invite = await admin.post('/console/api/members/invite', {
      tenantId: s.tenantId,
      email: 'escape@example.com',
      role: 'admin',
    });
    expect([invite.statusCode, invite.json().error.code]).toEqual([403, 'insufficient_role']);
    const dev = await signIn(h, 'limited-dev@example.com');
    const key = await dev.credential(environment.id);
    const tenantWide = await postJson(h, key, '/v1/domains/add', {
      domain: 'limited-tenant.example.com',
      scope: 'tenant',
    });
    expect([tenantWide.statusCode, tenantWide.json().error.code]).toEqual([403, 'insufficient_role']);
    const own = await postJson(h, key, '/v1/domains/add', { domain: 'limited-env.example.com' });
    expect(own.statusCode, own.body).toBe(200);
    // who was mailed in another project is not found through the contact list's filters
    for (const filter of [
      { field: 'environment', op: 'eq', value: s.environmentId },
      { field: 'environment', op: 'neq', value: s.environmentId },
      { field: 'environment', op: 'in', value: [environment.id, s.environmentId] },
      { field: 'project', op: 'eq', value: s.projectId },
      { field: 'environment', op: 'eq', value: 'env_0000000000000000000000000' },
    ]) {
      const res = await postJson(h, key, '/v1/contacts/list', { filters: [filter] });
      expect(
        [res.statusCode, res.json().error?.code, res.json().error?.details?.[0]?.path],
        res.body,
      ).toEqual([400, 'invalid_request', '/filters/0/value']);
    }
    for (const filter of [
      { field: 'environment', op: 'eq', value: environment.id },
      { field: 'project', op: 'in', value: [project.id] },
    ])
      expect((await postJson(h, key, '/v1/contacts/list', { filters: [filter] })).statusCode).toBe(200);
    // a key (not a member) filters by any of the tenant's
    const plain = await postJson(h, s.apiKey, '/v1/contacts/list', {
      filters: [{ field: 'environment', op: 'eq', value: environment.id }],
    });
    expect(plain.statusCode, plain.body).toBe(200);
    // when a contact was last mailed counts only the member's projects' mail, in the record and
    // in the lastEmailedAt filter (with `project neq` its own, it would list who was mailed elsewhere)
    const elsewhere = 'mailed-elsewhere@example.com';
    expect((await postJson(h, s.apiKey, '/v1/contacts/upsert', { email: elsewhere })).statusCode).toBe(200);
    const third = await h.admin('projects.create', { tenant: s.tenantId, name: 'Third App' });
    const thirdEnv = await h.admin('environments.create', { project: third.project.id, name: 'production' });
    const thirdKey = (await h.admin('keys.create', { environment: thirdEnv.environment.id }))
      .apiKey as string;
    const sent = await postJson(h, thirdKey, '/v1/send', {
      templateId: 'login-code',
      to: elsewhere,
      data: { code: '123456' },
    });
    expect(sent.statusCode, sent.body).toBe(200);
    const emailedSince = {
      filters: [
        { field: 'project', op: 'neq', value: project.id },
        { field: 'lastEmailedAt', op: 'after', value: '2000-01-01T00:00:00Z' },
      ],
    };
    const emailsOf = (res: { json(): { contacts: { email: string }[] } }) =>
      res.json().contacts.map((c) => c.email);
    expect(emailsOf(await postJson(h, key, '/v1/contacts/list', emailedSince))).not.toContain(elsewhere);
    expect(emailsOf(await postJson(h, s.apiKey, '/v1/contacts/list', emailedSince))).toContain(elsewhere);
    const got = await postJson(h, key, '/v1/contacts/get', { emailOrContactId: elsewhere });
    expect(got.json().contact.lastEmailedAt, got.body).toBeNull();
    const byKey = await postJson(h, s.apiKey, '/v1/contacts/get', { emailOrContactId: elsewhere });
    expect(byKey.json().contact.lastEmailedAt, byKey.body).not.toBeNull();
  });

  it('expires a credential after 15 minutes', async () => {
    const apiKey = await sessions.get('viewer')!.credential(s.environmentId);
    const quota = () =>
      h.request({ method: 'GET', url: '/v1/quota', headers: { authorization: `Bearer ${apiKey}` } });
    h.clock.advance(15 * 60_000 - 1);
    expect((await quota()).statusCode).toBe(200);
    expect((await quota()).statusCode).toBe(200);
    h.clock.advance(1);
    const res = await quota();
    expect([res.statusCode, res.json().error.code]).toEqual([401, 'invalid_api_key']);
  });
});
