// The console's people and sessions (DESIGN.md §14, issue 29): sign-in by a mailed code (10
// minutes, 5 tries, once, rate-limited), server-side sessions in an httpOnly SameSite=Strict
// cookie (Secure and __Host- outside loopback), CSRF on every change, session fixation, a removed
// member's sessions ending at once, and the team's roles.
import {
  consolePost,
  latestSignInCode,
  sessionCookieOf,
  signIn,
  signInNewMember,
} from '@mailsvc/testkit/console-session';
import { createHarness, type Harness, postJson, type Scope, seedScope } from '@mailsvc/testkit/harness';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { totpCodeAt } from '../src/domain/console/totp.js';

let h: Harness;
let s: Scope;
let other: Scope;
const START = '2026-11-22T10:15:30.123Z';

beforeAll(async () => {
  h = await createHarness({ env: { MAILSVC_TRUST_PROXY: 'true' } });
  s = await seedScope(h);
  other = await seedScope(h);
});
afterEach(() => h.clock.set(START));
afterAll(() => h.close());

let n = 0;
const newAddress = () => `person-${++n}@example.com`;
async function invite(email: string, role = 'owner', tenant = s.tenantId) {
  return (await h.admin('members.invite', { tenant, email, role })).member as { id: string };
}
const start = (email: string, headers: Record<string, string> = {}) =>
  consolePost(h, '/console/api/sign-in/start', { email }, headers);
const verify = (email: string, code: string, headers: Record<string, string> = {}) =>
  consolePost(h, '/console/api/sign-in/verify', { email, code }, headers);
const me = (cookie: string) => h.request({ method: 'GET', url: '/console/api/me', headers: { cookie } });
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('sign-in by a mailed code', () => {
  it('mails the invitation and the code through the system environment, and opens a session', async () => {
    const email = newAddress();
    await invite(email);
    const invitation = await h.runtime.deps.db
      .selectFrom('messages')
      .select(['template_id', 'environment_id'])
      .where('to_email', '=', email)
      .executeTakeFirstOrThrow();
    expect(invitation.template_id).toBe('invitation');
    expect(invitation.environment_id).not.toBe(s.environmentId);
    const started = await start(email.toUpperCase());
    expect(started.statusCode, started.body).toBe(200);
    expect(started.json()).toEqual({ sent: true, expiresInSeconds: 600 });
    const code = await latestSignInCode(h, email);
    expect(code).toMatch(/^[0-9]{6}$/);
    const res = await verify(email, code);
    expect(res.statusCode, res.body).toBe(200);
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(
      /^mailsvc_session=[0-9A-Za-z]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=604800$/,
    );
    const who = await me(sessionCookieOf(res.headers['set-cookie']));
    expect(who.statusCode).toBe(200);
    expect(who.json()).toMatchObject({
      email,
      memberships: [
        {
          tenantId: s.tenantId,
          role: 'owner',
          projects: [{ id: s.projectId, environments: [{ id: s.environmentId }] }],
        },
      ],
    });
  });

  it('sets a Secure __Host- cookie when the console is not reached on a loopback name', async () => {
    const email = newAddress();
    await invite(email);
    await start(email, { host: 'mail.example.com' });
    const res = await verify(email, await latestSignInCode(h, email), { host: 'mail.example.com' });
    expect(String(res.headers['set-cookie'])).toMatch(
      /^__Host-mailsvc_session=\w+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=604800; Secure$/,
    );
  });

  it('answers the same for an address that is no member, and mails nothing to it', async () => {
    const email = newAddress();
    const res = await start(email);
    expect(res.json()).toEqual({ sent: true, expiresInSeconds: 600 });
    const mail = await h.runtime.deps.db
      .selectFrom('messages')
      .select('id')
      .where('to_email', '=', email)
      .execute();
    expect(mail).toEqual([]);
  });

  it('refuses a code used twice', async () => {
    const email = newAddress();
    await invite(email);
    await start(email);
    const code = await latestSignInCode(h, email);
    expect((await verify(email, code)).statusCode).toBe(200);
    const again = await verify(email, code);
    expect([again.statusCode, again.json().error.code]).toEqual([400, 'invalid_sign_in_code']);
    expect(again.json().error.message).toMatch(/used already/);
  });

  it('refuses a code after its 10 minutes', async () => {
    const email = newAddress();
    await invite(email);
    await start(email);
    const code = await latestSignInCode(h, email);
    h.clock.advance(10 * 60_000);
    const res = await verify(email, code);
    expect([res.statusCode, res.json().error.message]).toEqual([
      400,
      'That code expired; ask for a new one.',
    ]);
  });

  it('locks a code after 5 wrong tries: the right one is refused then', async () => {
    const email = newAddress();
    await invite(email);
    await start(email);
    const code = await latestSignInCode(h, email);
    for (let i = 0; i < 5; i++) {
      const res = await verify(email, wrong(code), { 'x-forwarded-for': `198.51.100.${i}` });
      expect(res.json().error.code).toBe('invalid_sign_in_code');
    }
    const res = await verify(email, code);
    expect([res.statusCode, res.json().error.message]).toEqual([
      400,
      'Too many wrong tries for that code; ask for a new one.',
    ]);
  });

  it('limits codes to 5 per address in 15 minutes (429 with Retry-After)', async () => {
    const email = newAddress();
    await invite(email);
    for (let i = 0; i < 5; i++) expect((await start(email)).statusCode).toBe(200);
    const res = await start(email);
    expect([res.statusCode, res.json().error.code, res.headers['retry-after']]).toEqual([
      429,
      'rate_limited',
      '900',
    ]);
    h.clock.advance(15 * 60_000 + 1);
    expect((await start(email)).statusCode).toBe(200);
  });

  it('counts wrong codes against the client as wrong API keys are counted: once over, not even a right code is tried', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 40 && !codes.includes(429); i++) {
      const res = await verify(newAddress(), '000000', { 'x-forwarded-for': '203.0.113.9' });
      codes.push(res.statusCode);
    }
    expect(codes).toContain(429);
    const email = newAddress();
    await invite(email);
    await start(email);
    const right = await verify(email, await latestSignInCode(h, email), { 'x-forwarded-for': '203.0.113.9' });
    expect([right.statusCode, right.json().error.code]).toEqual([429, 'rate_limited']);
  });

  it('stops mailing codes to an address after 20 wrong codes in a day', async () => {
    const email = newAddress();
    await invite(email);
    for (let round = 0; round < 4; round++) {
      expect((await start(email)).statusCode).toBe(200);
      const code = await latestSignInCode(h, email);
      for (let i = 0; i < 5; i++) await verify(email, wrong(code));
    }
    h.clock.advance(15 * 60_000 + 1);
    const refused = await start(email);
    expect([refused.statusCode, refused.json().error.message]).toEqual([
      429,
      'Too many wrong codes for this address today; try again tomorrow.',
    ]);
    h.clock.advance(24 * 3600_000);
    expect((await start(email)).statusCode).toBe(200);
  });

  it('holds the per-address limit against parallel requests', async () => {
    const email = newAddress();
    await invite(email);
    const answers = await Promise.all(Array.from({ length: 12 }, () => start(email)));
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(5);
    expect(answers.filter((a) => a.statusCode === 429)).toHaveLength(7);
  });
});

describe('sessions', () => {
  it('never keeps a session token presented before sign-in (fixation): the old one ends, a new one is set', async () => {
    const email = newAddress();
    await invite(email);
    const first = await signIn(h, email);
    await start(email);
    const res = await verify(email, await latestSignInCode(h, email), { cookie: first.cookie });
    const second = sessionCookieOf(res.headers['set-cookie']);
    expect(second).not.toBe(first.cookie);
    expect((await me(first.cookie)).statusCode).toBe(401);
    expect((await me(second)).statusCode).toBe(200);
    const forged = await me('mailsvc_session=attacker-chosen-value');
    expect([forged.statusCode, forged.json().error.code]).toEqual([401, 'session_required']);
  });

  it('ends after 12 hours idle and 7 days in all', async () => {
    const email = newAddress();
    await invite(email);
    const a = await signIn(h, email);
    h.clock.advance(12 * 3600_000 - 1000);
    expect((await me(a.cookie)).statusCode).toBe(200);
    h.clock.advance(12 * 3600_000 - 1000);
    expect((await me(a.cookie)).statusCode).toBe(200);
    h.clock.advance(12 * 3600_000 + 1000);
    expect((await me(a.cookie)).statusCode).toBe(401);
    h.clock.set(START);
    const other = newAddress();
    await invite(other);
    const b = await signIn(h, other);
    for (let hours = 11; hours < 7 * 24; hours += 11) {
      h.clock.advance(11 * 3600_000);
      expect((await me(b.cookie)).statusCode, `after ${hours} h`).toBe(200);
    }
    h.clock.set(new Date(Date.parse(START) + 7 * 24 * 3600_000 + 1000).toISOString());
    expect((await me(b.cookie)).statusCode).toBe(401);
  });

  it('lists and revokes the address’s sessions; sign-out ends the current one', async () => {
    const email = newAddress();
    await invite(email);
    const a = await signIn(h, email);
    const b = await signIn(h, email);
    const listed = (await a.post('/console/api/sessions/list', {})).json().sessions as {
      id: string;
      current: boolean;
    }[];
    expect(listed).toHaveLength(2);
    const bId = (await me(b.cookie)).json().sessionId;
    expect(listed.find((x) => x.id === bId)?.current).toBe(false);
    expect((await a.post('/console/api/sessions/revoke', { sessionId: bId })).statusCode).toBe(200);
    expect((await me(b.cookie)).statusCode).toBe(401);
    const out = await a.post('/console/api/sign-out', {});
    expect(String(out.headers['set-cookie'])).toMatch(/^mailsvc_session=; .*Max-Age=0/);
    expect((await me(a.cookie)).statusCode).toBe(401);
  });

  it('ends a removed member’s sessions and credentials at once', async () => {
    const owner = await signInNewMember(h, s.tenantId, 'owner');
    const dev = await signInNewMember(h, s.tenantId, 'developer');
    const key = await dev.credential(s.environmentId);
    expect((await postJson(h, key, '/v1/messages/list', {})).statusCode).toBe(200);
    const removed = await owner.post('/console/api/members/remove', {
      tenantId: s.tenantId,
      memberId: dev.memberId,
    });
    expect(removed.statusCode, removed.body).toBe(200);
    const after = await postJson(h, key, '/v1/messages/list', {});
    expect([after.statusCode, after.json().error.code]).toEqual([401, 'invalid_api_key']);
    expect((await me(dev.cookie)).statusCode).toBe(401);
  });
});

describe('two-factor sign-in (TOTP)', () => {
  it('is set up, confirmed with a code, then asked for after the mailed code, each code good once', async () => {
    const email = newAddress();
    await invite(email);
    const a = await signIn(h, email);
    const setup = await a.post('/console/api/totp/setup', {});
    expect(setup.statusCode, setup.body).toBe(200);
    expect(setup.json().uri).toMatch(/^otpauth:\/\/totp\/mailsvc:.*secret=[A-Z2-7]+/);
    const secret = (
      await h.runtime.deps.db
        .selectFrom('console_totp')
        .select('secret')
        .where('email', '=', email)
        .executeTakeFirstOrThrow()
    ).secret;
    const now = () => h.runtime.deps.clock.now();
    expect(
      (
        await a.post('/console/api/totp/enable', {
          code: '000000' === totpCodeAt(secret, now()) ? '111111' : '000000',
        })
      ).statusCode,
    ).toBe(400);
    expect((await a.post('/console/api/totp/enable', { code: totpCodeAt(secret, now()) })).statusCode).toBe(
      200,
    );
    expect((await me(a.cookie)).json().totpEnabled).toBe(true);

    await start(email);
    const code = await latestSignInCode(h, email);
    const without = await verify(email, code);
    expect([without.statusCode, without.json().error.details]).toEqual([
      400,
      [{ path: '/totp', message: 'is required' }],
    ]);
    // the code it enabled with is spent; the next step's is good
    const reused = await consolePost(h, '/console/api/sign-in/verify', {
      email,
      code,
      totp: totpCodeAt(secret, now()),
    });
    expect(reused.json().error.details).toEqual([{ path: '/totp', message: 'is not the current code' }]);
    h.clock.advance(30_000);
    const good = await consolePost(h, '/console/api/sign-in/verify', {
      email,
      code,
      totp: totpCodeAt(secret, now()),
    });
    expect(good.statusCode, good.body).toBe(200);
    const b = sessionCookieOf(good.headers['set-cookie']);
    const csrf = (await me(b)).json().csrfToken;
    h.clock.advance(30_000);
    const off = await consolePost(
      h,
      '/console/api/totp/disable',
      { code: totpCodeAt(secret, now()) },
      { cookie: b, 'x-csrf-token': csrf },
    );
    expect(off.statusCode, off.body).toBe(200);
    expect((await me(b)).json().totpEnabled).toBe(false);
  });
});

describe('retention', () => {
  it('deletes spent sign-in codes after a day and expired credentials a day after they ended', async () => {
    const dev = await signInNewMember(h, s.tenantId, 'developer');
    const key = await dev.credential(s.environmentId);
    const keyId = `key_${key.split('_')[1]}`;
    const codes = () =>
      h.runtime.deps.db
        .selectFrom('console_sign_in_codes')
        .select('id')
        .where('email', '=', dev.email)
        .execute();
    expect((await codes()).length).toBeGreaterThan(0);
    h.clock.advance(2 * 86_400_000);
    const { sweepOnce } = await import('../src/delivery/retention.js');
    expect((await sweepOnce(h.runtime.deps)).consoleRows).toBeGreaterThan(0);
    expect(await codes()).toEqual([]);
    const row = await h.runtime.deps.db
      .selectFrom('api_keys')
      .select('id')
      .where('id', '=', keyId)
      .executeTakeFirst();
    expect(row).toBeUndefined();
  });
});

describe('CSRF and origins', () => {
  it('refuses a change without the session’s X-CSRF-Token, and a cross-site form post, changing nothing', async () => {
    const owner = await signInNewMember(h, s.tenantId, 'owner');
    const target = newAddress();
    const body = { tenantId: s.tenantId, email: target, role: 'admin' };
    const noToken = await consolePost(h, '/console/api/members/invite', body, { cookie: owner.cookie });
    expect([noToken.statusCode, noToken.json().error.code]).toEqual([403, 'cross_site_request']);
    const crossSite = await h.request({
      method: 'POST',
      url: '/console/api/members/invite',
      headers: {
        cookie: owner.cookie,
        origin: 'https://evil.example',
        'sec-fetch-site': 'cross-site',
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: `tenantId=${s.tenantId}&email=${target}&role=admin`,
    });
    expect([crossSite.statusCode, crossSite.json().error.code]).toEqual([403, 'cross_site_request']);
    const wrongToken = await owner.post('/console/api/members/invite', body, {
      'x-csrf-token': 'A'.repeat(43),
    });
    expect(wrongToken.statusCode).toBe(403);
    const members = (await owner.post('/console/api/members/list', { tenantId: s.tenantId })).json()
      .members as { email: string }[];
    expect(members.map((m) => m.email)).not.toContain(target);
  });

  it('serves the console page with a CSP that allows no inline script or style', async () => {
    const res = await h.request({ method: 'GET', url: '/console/emails' });
    expect(res.statusCode).toBe(200);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.body).not.toMatch(/<script(?![^>]*\bsrc=)/);
  });
});

describe('the console’s page and assets', () => {
  it('serves the bundled script and the styles with an ETag, and 404 for an unknown asset or API path', async () => {
    const js = await h.request({ method: 'GET', url: '/console/assets/app.js' });
    expect([js.statusCode, js.headers['content-type']]).toEqual([200, 'text/javascript; charset=utf-8']);
    expect(js.body.length).toBeGreaterThan(10_000);
    const again = await h.request({
      method: 'GET',
      url: '/console/assets/app.js',
      headers: { 'if-none-match': String(js.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
    const css = await h.request({ method: 'GET', url: '/console/assets/app.css' });
    expect([css.statusCode, css.headers['content-type']]).toEqual([200, 'text/css; charset=utf-8']);
    for (const url of ['/console/assets/other.js', '/console/api/nothing']) {
      const res = await h.request({ method: 'GET', url });
      expect([res.statusCode, res.json().error.code], url).toEqual([404, 'not_found']);
    }
  });

  it('is off with MAILSVC_CONSOLE=off', async () => {
    const off = await createHarness({ env: { MAILSVC_CONSOLE: 'off' } });
    try {
      for (const url of ['/console', '/console/api/me'])
        expect((await off.request({ method: 'GET', url })).statusCode).toBe(404);
      const res = await consolePost(off, '/console/api/sign-in/start', { email: 'a@example.com' });
      expect(res.statusCode).toBe(404);
    } finally {
      await off.close();
    }
  });
});

describe('previews', () => {
  it('renders a template’s example and a held message for a member of the environment only', async () => {
    const owner = await signInNewMember(h, s.tenantId, 'developer');
    const get = (url: string, cookie = owner.cookie) =>
      h.request({ method: 'GET', url, headers: { cookie } });
    const page = await get(`/console/preview/template/login-code?environmentId=${s.environmentId}`);
    expect(page.statusCode, page.body).toBe(200);
    expect(page.headers['content-security-policy']).toContain("style-src 'unsafe-inline'");
    expect(page.headers['content-security-policy']).not.toContain('script-src');
    expect(page.body).toContain('482913');
    const sent = await postJson(h, s.apiKey, '/v1/send', {
      templateId: 'mention',
      to: 'preview@example.com',
      data: { intro: 'Casey Previewer mentioned you.' },
    });
    expect(sent.statusCode, sent.body).toBe(200);
    const message = await get(
      `/console/preview/message/${sent.json().messageId}?environmentId=${s.environmentId}`,
    );
    expect([message.statusCode, message.body.includes('Casey Previewer')]).toEqual([200, true]);
    const foreign = await get(
      `/console/preview/message/${sent.json().messageId}?environmentId=${other.environmentId}`,
    );
    expect([foreign.statusCode, foreign.json().error.code]).toEqual([404, 'environment_not_found']);
    // a security message's code or link is never shown, and a viewer sees no message's content
    const code = await postJson(h, s.apiKey, '/v1/send', {
      templateId: 'login-code',
      to: 'preview@example.com',
      data: { code: '135790' },
    });
    const security = await get(
      `/console/preview/message/${code.json().messageId}?environmentId=${s.environmentId}`,
    );
    expect([security.statusCode, security.body.includes('135790')]).toEqual([200, false]);
    const viewer = await signInNewMember(h, s.tenantId, 'viewer');
    const refused = await get(
      `/console/preview/message/${sent.json().messageId}?environmentId=${s.environmentId}`,
      viewer.cookie,
    );
    expect([refused.statusCode, refused.json().error.code]).toEqual([403, 'insufficient_role']);
    const signedOut = await h.request({
      method: 'GET',
      url: `/console/preview/template/login-code?environmentId=${s.environmentId}`,
    });
    expect(signedOut.statusCode).toBe(401);
  });
});

describe('the team', () => {
  it('limits the invitations members mail: a mailbox (+tags folded) 5 times a day per team and 20 in all teams, 50 people an hour per team; the operator is not limited', async () => {
    const teams: { tenantId: string; owner: Awaited<ReturnType<typeof signInNewMember>> }[] = [];
    for (let i = 0; i < 5; i++) {
      const scope = await seedScope(h);
      teams.push({ tenantId: scope.tenantId, owner: await signInNewMember(h, scope.tenantId, 'owner') });
    }
    const inviteBy = (t: (typeof teams)[number], email: string) =>
      t.owner.post('/console/api/members/invite', { tenantId: t.tenantId, email, role: 'viewer' });
    const inviteAndRemove = async (t: (typeof teams)[number], email: string) => {
      const invited = await inviteBy(t, email);
      expect(invited.statusCode, invited.body).toBe(200);
      const removed = await t.owner.post('/console/api/members/remove', {
        tenantId: t.tenantId,
        memberId: invited.json().member.id,
      });
      expect(removed.statusCode, removed.body).toBe(200);
    };
    const refusedFor = async (res: Awaited<ReturnType<typeof inviteBy>>, seconds: string) =>
      expect([res.statusCode, res.json().error?.code, res.headers['retry-after']], res.body).toEqual([
        429,
        'rate_limited',
        seconds,
      ]);
    const [first, second, third, fourth, fifth] = teams as [
      (typeof teams)[number],
      (typeof teams)[number],
      (typeof teams)[number],
      (typeof teams)[number],
      (typeof teams)[number],
    ];
    const target = newAddress();
    const tagged = target.replace('@', '+again@');
    for (let i = 0; i < 5; i++) await inviteAndRemove(first, i % 2 === 0 ? target : tagged);
    await refusedFor(await inviteBy(first, target), '86400');
    await refusedFor(await inviteBy(first, target.replace('@', '+new@')), '86400');
    // another team is not blocked by the first one's invitations
    for (const team of [second, third, fourth])
      for (let i = 0; i < 5; i++) await inviteAndRemove(team, target);
    // 20 in all teams: the mailbox is left alone for the day
    await refusedFor(await inviteBy(fifth, target), '86400');
    const mailed = await h.runtime.deps.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('to_email', 'in', [target, tagged])
      .where('template_id', '=', 'invitation')
      .executeTakeFirstOrThrow();
    expect(Number(mailed.n)).toBe(20);
    // the operator invites whom it must
    await invite(target, 'viewer', fifth.tenantId);
    h.clock.advance(24 * 3600_000 + 1000);
    // (sessions end after 12 idle hours: sign in again)
    const later = { tenantId: first.tenantId, owner: await signInNewMember(h, first.tenantId, 'owner') };
    expect((await inviteBy(later, target)).statusCode).toBe(200);
    // the team's earlier invitations are out of the hour: 48 more people (its new owner and the one
    // just invited are two of the 50), then 429 for an hour
    for (let i = 0; i < 48; i++) {
      const res = await inviteBy(later, newAddress());
      expect(res.statusCode, res.body).toBe(200);
    }
    await refusedFor(await inviteBy(later, newAddress()), '3600');
    h.clock.advance(3600_000 + 1000);
    expect((await inviteBy(later, newAddress())).statusCode).toBe(200);
  });

  it('lets owners and admins invite, only owners touch owners, and keeps one owner', async () => {
    const owner = await signInNewMember(h, other.tenantId, 'owner');
    const admin = await signInNewMember(h, other.tenantId, 'admin');
    const viewer = await signInNewMember(h, other.tenantId, 'viewer');
    const ask = (who: typeof owner, url: string, body: Record<string, unknown>) =>
      who.post(url, { tenantId: other.tenantId, ...body });
    const byViewer = await ask(viewer, '/console/api/members/invite', {
      email: newAddress(),
      role: 'viewer',
    });
    expect([byViewer.statusCode, byViewer.json().error.code]).toEqual([403, 'insufficient_role']);
    const ownerByAdmin = await ask(admin, '/console/api/members/invite', {
      email: newAddress(),
      role: 'owner',
    });
    expect(ownerByAdmin.json().error.code).toBe('insufficient_role');
    const dev = await ask(admin, '/console/api/members/invite', { email: newAddress(), role: 'developer' });
    expect(dev.statusCode, dev.body).toBe(200);
    const twice = await ask(admin, '/console/api/members/invite', {
      email: dev.json().member.email,
      role: 'viewer',
    });
    expect([twice.statusCode, twice.json().error.code]).toEqual([409, 'member_already_added']);
    const demote = await ask(owner, '/console/api/members/update', {
      memberId: owner.memberId,
      role: 'admin',
    });
    expect([demote.statusCode, demote.json().error.code]).toEqual([409, 'last_owner']);
    const promoted = await ask(owner, '/console/api/members/update', {
      memberId: admin.memberId,
      role: 'owner',
    });
    expect(promoted.json().member.role).toBe('owner');
    expect(
      (await ask(owner, '/console/api/members/update', { memberId: owner.memberId, role: 'admin' }))
        .statusCode,
    ).toBe(200);
  });

  it('answers another tenant’s team, member or environment as not found', async () => {
    const owner = await signInNewMember(h, other.tenantId, 'owner');
    const foreign = await owner.post('/console/api/members/list', { tenantId: s.tenantId });
    expect([foreign.statusCode, foreign.json().error.code]).toEqual([404, 'not_found']);
    const cred = await owner.post('/console/api/credentials', { environmentId: s.environmentId });
    expect([cred.statusCode, cred.json().error.code]).toEqual([404, 'environment_not_found']);
    const sMember = await invite(newAddress(), 'viewer');
    const remove = await owner.post('/console/api/members/remove', {
      tenantId: other.tenantId,
      memberId: sMember.id,
    });
    expect([remove.statusCode, remove.json().error.code]).toEqual([404, 'member_not_found']);
  });
});
