// The hostile corpus over the console's own routes (/console/api/…, issue 29): every body attack
// of the /v1 corpus (hostile characters, lengths, wrong types, structure, sizes, media types), from
// a signed-in owner's session with its CSRF token, answers a documented 4xx in the envelope (or
// its answer when no rule refuses it), never a 5xx; and nothing stored holds what was refused.

import { type ConsoleSession, signInNewMember } from '@mailsvc/testkit/console-session';
import { createHarness, type Harness, type Scope, seedScope } from '@mailsvc/testkit/harness';
import {
  type Answer,
  answerProblems,
  type BodyCase,
  contentTypeBodies,
  describeFailure,
  EMAIL_ATTACKS,
  type FieldSpec,
  fieldBodies,
  type HostileRequest,
  IDENTIFIER_ATTACKS,
  runPool,
  sizeBodies,
  structuralBodies,
  wrongTypeBodies,
} from '@mailsvc/testkit/hostile-corpus';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_BODIES } from '../src/api/console/console-routes.js';
import { errorCatalogue } from '../src/errors.js';

let h: Harness;
let s: Scope;
let owner: ConsoleSession;
let viewerId: string;

beforeAll(async () => {
  h = await createHarness({ env: { MAILSVC_TRUST_PROXY: 'true' } });
  s = await seedScope(h, { monthlyLimit: 100_000 });
  owner = await signInNewMember(h, s.tenantId, 'owner');
  viewerId = (
    await h.admin('members.invite', {
      tenant: s.tenantId,
      email: 'hostile-viewer@example.com',
      role: 'viewer',
    })
  ).member.id;
});
afterAll(() => h.close());

const ipOf = (i: number) => `198.18.${(i >> 8) & 255}.${i & 255}`;

async function expectEveryAnswerDocumented(requests: HostileRequest[]) {
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  await runPool(requests, 8, async (req, i) => {
    const res = await h.request({
      method: req.method as 'POST',
      url: req.url,
      headers: { ...(req.headers as Record<string, string>), 'x-forwarded-for': ipOf(i) },
      ...(req.body !== undefined && { payload: req.body }),
    });
    const answer: Answer = { status: res.statusCode, headers: res.headers, body: res.body };
    statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
    const problems = answerProblems(req, answer, errorCatalogue);
    if (problems.length > 0) failures.push(describeFailure(req, answer, problems));
  });
  expect(failures.slice(0, 60), `${failures.length} of ${requests.length} requests failed`).toEqual([]);
  return statuses;
}

const exact = (pointer: string, valid: string): FieldSpec => ({
  pointer,
  kind: 'exact',
  valid,
  limits: [64],
  extra: IDENTIFIER_ATTACKS,
});
const email = (valid: string): FieldSpec => ({
  pointer: '/email',
  kind: 'email',
  valid,
  limits: [320, 254],
  extra: EMAIL_ATTACKS,
});

function corpus(
  url: keyof typeof CONSOLE_BODIES,
  base: Record<string, unknown>,
  fields: FieldSpec[],
  session: boolean,
) {
  const cases: BodyCase[] = [
    ...fieldBodies(base, fields),
    ...fields.filter((f) => f.pointer !== '/name').flatMap((f) => wrongTypeBodies(base, f.pointer)),
    ...structuralBodies(base, ''),
    ...sizeBodies(base, CONSOLE_BODIES[url], ['']),
    ...contentTypeBodies(base),
  ];
  const auth = session ? { cookie: owner.cookie, 'x-csrf-token': owner.csrf } : {};
  return cases.map(
    (c): HostileRequest => ({
      endpoint: `POST ${url}`,
      name: c.name,
      method: 'POST',
      url,
      headers: {
        ...auth,
        'content-type': 'contentType' in c ? (c.contentType as string) : 'application/json',
      },
      body: c.body,
      mustRefuse: c.mustRefuse,
      ...(c.refusePath !== undefined && { refusePath: c.refusePath }),
      ...(c.isSizeAttack && { isSizeAttack: true }),
    }),
  );
}

describe('the console’s routes', () => {
  it('covers every console POST route', () => {
    expect(Object.keys(CONSOLE_BODIES).sort()).toEqual(
      corpora()
        .map(([url]) => url)
        .sort(),
    );
  });

  it('answers every hostile body with a documented 4xx (or its answer when no rule refuses it), never a 5xx', async () => {
    for (const [url, requests] of corpora()) {
      const statuses = await expectEveryAnswerDocumented(requests);
      expect(statuses.get(500) ?? 0, url).toBe(0);
      // Only sign-out is asked without a session (it answers 401 session_required).
      if (url !== '/console/api/sign-out') expect(statuses.get(401) ?? 0, url).toBe(0);
      expect(statuses.get(400) ?? statuses.get(415) ?? 0, url).toBeGreaterThan(0);
    }
    const members = await h.runtime.deps.db.selectFrom('members').select(['email', 'name']).execute();
    for (const m of members) expect(m.email, m.email).toMatch(/^[!-~]+@[a-z0-9.-]+$/);
  });
});

function corpora(): [keyof typeof CONSOLE_BODIES, HostileRequest[]][] {
  const tenant = exact('/tenantId', s.tenantId);
  const member = exact('/memberId', viewerId);
  const role: FieldSpec = { ...exact('/role', 'viewer'), limits: [20] };
  // the invitation's name may be null (no name), as the route's schema says
  const name: FieldSpec = {
    pointer: '/name',
    kind: 'name',
    valid: 'Hostile Person',
    limits: [200],
    nullable: true,
  };
  return [
    [
      '/console/api/sign-in/start',
      corpus(
        '/console/api/sign-in/start',
        { email: 'nobody@example.com' },
        [email('nobody@example.com')],
        false,
      ),
    ],
    [
      '/console/api/sign-in/verify',
      corpus(
        '/console/api/sign-in/verify',
        { email: 'nobody@example.com', code: '123456' },
        [email('nobody@example.com'), { ...exact('/code', '123456'), limits: [6] }],
        false,
      ),
    ],
    [
      '/console/api/credentials',
      corpus(
        '/console/api/credentials',
        { environmentId: s.environmentId },
        [exact('/environmentId', s.environmentId)],
        true,
      ),
    ],
    ['/console/api/sessions/list', corpus('/console/api/sessions/list', {}, [], true)],
    [
      '/console/api/sessions/revoke',
      corpus(
        '/console/api/sessions/revoke',
        { sessionId: 'ses_01M81C1XJB7Y4KHB01G4B1P0M5' },
        [exact('/sessionId', 'ses_01M81C1XJB7Y4KHB01G4B1P0M5')],
        true,
      ),
    ],
    [
      '/console/api/members/list',
      corpus('/console/api/members/list', { tenantId: s.tenantId }, [tenant], true),
    ],
    [
      '/console/api/members/invite',
      corpus(
        '/console/api/members/invite',
        { tenantId: s.tenantId, email: 'hostile-invite@example.com', role: 'viewer', name: 'Hostile Person' },
        [tenant, email('hostile-invite@example.com'), role, name],
        true,
      ),
    ],
    [
      '/console/api/members/update',
      corpus(
        '/console/api/members/update',
        { tenantId: s.tenantId, memberId: viewerId, role: 'viewer' },
        [tenant, member, role],
        true,
      ),
    ],
    [
      '/console/api/members/remove',
      corpus(
        '/console/api/members/remove',
        { tenantId: s.tenantId, memberId: 'mem_01M81C1XJB7Y4KHB01G4B1P0M5' },
        [tenant, exact('/memberId', 'mem_01M81C1XJB7Y4KHB01G4B1P0M5')],
        true,
      ),
    ],
    ['/console/api/totp/setup', corpus('/console/api/totp/setup', {}, [], true)],
    [
      '/console/api/totp/enable',
      corpus(
        '/console/api/totp/enable',
        { code: '123456' },
        [{ ...exact('/code', '123456'), limits: [6] }],
        true,
      ),
    ],
    [
      '/console/api/totp/disable',
      corpus(
        '/console/api/totp/disable',
        { code: '123456' },
        [{ ...exact('/code', '123456'), limits: [6] }],
        true,
      ),
    ],
    ['/console/api/sign-out', corpus('/console/api/sign-out', {}, [], false)],
  ];
}
