// Signing in to the console in tests: a member invited by the operator, its code read back from the
// message the system environment accepted (the template data it holds), and the session's cookie,
// CSRF token and credentials.
import type { MemberRole } from '@mailsvc/contract/roles';
import type { Harness } from './harness.js';

export interface ConsoleSession {
  email: string;
  memberId: string;
  cookie: string;
  csrf: string;
  /** POST to a console route with the session (and its CSRF token unless told otherwise). */
  post(url: string, body: unknown, headers?: Record<string, string>): ReturnType<Harness['request']>;
  /** A console credential (an API key) of an environment. */
  credential(environmentId: string): Promise<string>;
}

const codesSeen = new WeakMap<Harness, Map<string, number>>();

/**
 * The code in the newest sign-in mail to the address (the message's template data), once a mail
 * newer than the last one read here has been accepted: sign-in mails the code after it answers.
 */
export async function latestSignInCode(h: Harness, email: string): Promise<string> {
  const seen = codesSeen.get(h) ?? new Map<string, number>();
  codesSeen.set(h, seen);
  const mails = () =>
    h.runtime.deps.db
      .selectFrom('messages')
      .select(['data'])
      .where('to_email', '=', email)
      .where('template_id', '=', 'login-code')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
  for (let i = 0; i < 500; i++) {
    const rows = await mails();
    if (rows.length > (seen.get(email) ?? 0)) {
      seen.set(email, rows.length);
      return String((rows[0]!.data as { code: string }).code);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no new sign-in code was mailed to ${email}`);
}

let clientCounter = 0;
/**
 * Each call from its own client address (the harness must trust one proxy: MAILSVC_TRUST_PROXY),
 * so the per-client limits of one test do not reach the next; a test that checks them sends its own.
 */
const nextClient = () => {
  const k = ++clientCounter;
  return `10.${(k >> 16) & 255}.${(k >> 8) & 255}.${k & 255}`;
};

export const consolePost = (h: Harness, url: string, body: unknown, headers: Record<string, string> = {}) => {
  // On a fixed clock, ids made in one millisecond are not in order: each call a millisecond later,
  // so the newest sign-in mail is the last one asked for.
  h.clock.advance(1);
  return h.request({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', 'x-forwarded-for': nextClient(), ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
};

/** The session cookie (name=value) a sign-in answer set. */
export function sessionCookieOf(setCookie: string | string[] | undefined): string {
  const value = Array.isArray(setCookie) ? setCookie[0] : setCookie;
  if (!value) throw new Error('no Set-Cookie');
  return value.split(';')[0]!;
}

/** Signs an address in (it must be a member somewhere): start, the code from its mail, verify. */
export async function signIn(h: Harness, email: string): Promise<Omit<ConsoleSession, 'memberId'>> {
  const started = await consolePost(h, '/console/api/sign-in/start', { email });
  if (started.statusCode !== 200) throw new Error(`sign-in start: ${started.body}`);
  const code = await latestSignInCode(h, email);
  const verified = await consolePost(h, '/console/api/sign-in/verify', { email, code });
  if (verified.statusCode !== 200) throw new Error(`sign-in verify: ${verified.body}`);
  const cookie = sessionCookieOf(verified.headers['set-cookie']);
  const me = await h.request({ method: 'GET', url: '/console/api/me', headers: { cookie } });
  const csrf = me.json().csrfToken as string;
  const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    consolePost(h, url, body, { cookie, 'x-csrf-token': csrf, ...headers });
  return {
    email,
    cookie,
    csrf,
    post,
    async credential(environmentId) {
      const res = await post('/console/api/credentials', { environmentId });
      if (res.statusCode !== 200) throw new Error(`credentials: ${res.body}`);
      return res.json().apiKey as string;
    },
  };
}

let memberCounter = 0;

/** A new member of the tenant with this role, invited by the operator, signed in. */
export async function signInNewMember(
  h: Harness,
  tenantId: string,
  role: MemberRole,
): Promise<ConsoleSession> {
  const email = `${role}-${process.pid}-${++memberCounter}@example.com`;
  const { member } = await h.admin('members.invite', { tenant: tenantId, email, role });
  return { ...(await signIn(h, email)), memberId: member.id };
}
