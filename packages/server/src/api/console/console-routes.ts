// The console's own routes (docs/console.md): sign-in, the session, its credentials, its sessions,
// and the team. Everything else a console page shows or changes goes through /v1 with a session's
// credential, so a page never has a power the API lacks.
import { clientLimitKey } from '@mailsvc/contract/rate-limit';
import { MEMBER_ROLES } from '@mailsvc/contract/roles';
import { type Static, type TProperties, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { revokeSession } from '../../db/repositories/console-people.js';
import { Name } from '../../domain/admin/schemas.js';
import {
  changeMemberRole,
  inviteMember,
  listMembers,
  removeMember,
  type TeamActor,
} from '../../domain/console/members.js';
import {
  csrfTokenOf,
  endSession,
  issueCredential,
  listSessions,
  membershipsOf,
  requireMembership,
  requireSession,
} from '../../domain/console/session.js';
import { startSignIn, verifySignIn } from '../../domain/console/sign-in.js';
import { disableTotp, enableTotp, isTotpEnabled, setUpTotp } from '../../domain/console/totp.js';
import type { Deps } from '../../domain/deps.js';
import { retryLater } from '../../errors.js';
import { checkFailure } from '../auth-hook.js';
import { requireJsonContentType } from '../json-body.js';
import { refuseOversizedBody } from '../route.js';
import {
  CONSOLE_ID_PATTERN,
  changingSessionOf,
  clearSessionCookie,
  requireSameOriginPost,
  sessionOf,
  sessionToken,
  setSessionCookie,
} from './console-access.js';

const Email = Type.String({ minLength: 1, maxLength: 320 });
const Id = Type.String({ minLength: 1, maxLength: 64, pattern: CONSOLE_ID_PATTERN });
const Role = Type.Union(MEMBER_ROLES.map((r) => Type.Literal(r)));
const strict = <T extends TProperties>(p: T) => Type.Object(p, { additionalProperties: false });

/** Each console POST route's body (the hostile corpus reads them too). */
export const CONSOLE_BODIES = {
  '/console/api/sign-in/start': strict({ email: Email }),
  '/console/api/sign-in/verify': strict({
    email: Email,
    code: Type.String({ pattern: '^[0-9]{6}$' }),
    totp: Type.Optional(Type.String({ pattern: '^[0-9]{6}$' })),
  }),
  '/console/api/totp/setup': strict({}),
  '/console/api/totp/enable': strict({ code: Type.String({ pattern: '^[0-9]{6}$' }) }),
  '/console/api/totp/disable': strict({ code: Type.String({ pattern: '^[0-9]{6}$' }) }),
  '/console/api/sign-out': strict({}),
  '/console/api/credentials': strict({ environmentId: Id }),
  '/console/api/sessions/list': strict({}),
  '/console/api/sessions/revoke': strict({ sessionId: Id }),
  '/console/api/members/list': strict({ tenantId: Id }),
  '/console/api/members/invite': strict({
    tenantId: Id,
    email: Email,
    name: Type.Optional(Type.Union([Name, Type.Null()])),
    role: Role,
    projectIds: Type.Optional(
      Type.Union([Type.Array(Id, { minItems: 1, maxItems: 100, uniqueItems: true }), Type.Null()]),
    ),
  }),
  '/console/api/members/update': strict({ tenantId: Id, memberId: Id, role: Role }),
  '/console/api/members/remove': strict({ tenantId: Id, memberId: Id }),
};
type ConsolePost = keyof typeof CONSOLE_BODIES;
type BodyOf<U extends ConsolePost> = Static<(typeof CONSOLE_BODIES)[U]>;

/**
 * A console POST: its origin checked before anything is read (requireSameOriginPost), JSON only,
 * sizes before items (refuseOversizedBody), then its schema; answers are never cached.
 */
function consolePost<U extends ConsolePost>(
  app: FastifyInstance,
  url: U,
  handler: (req: FastifyRequest<{ Body: BodyOf<U> }>, reply: FastifyReply) => Promise<unknown>,
) {
  const schema = CONSOLE_BODIES[url];
  app.post<{ Body: BodyOf<U> }>(url, {
    onRequest: async (req) => {
      await requireSameOriginPost(req);
      requireJsonContentType(req.headers['content-type']);
    },
    preValidation: async (req) => refuseOversizedBody(schema, req.body),
    schema: { body: schema },
    handler: async (req, reply) => {
      reply.headers({ 'cache-control': 'no-store' });
      return handler(req, reply);
    },
  });
}

/** The signed-in member acting on a tenant's team. */
async function teamActor(deps: Deps, req: FastifyRequest, tenantId: string): Promise<TeamActor> {
  const session = await changingSessionOf(deps, req);
  const m = await requireMembership(deps, session, tenantId);
  return { kind: 'member', id: m.memberId, email: session.email, role: m.role, projectIds: m.projectIds };
}

function signInRoutes(app: FastifyInstance, deps: Deps) {
  consolePost(app, '/console/api/sign-in/start', async (req) =>
    startSignIn(deps, { email: req.body.email, client: clientLimitKey(req.ip) }),
  );
  consolePost(app, '/console/api/sign-in/verify', async (req, reply) => {
    // A client over its failed-authentication allowance is not even asked: a right code would
    // otherwise still pass, and the allowance would not stop guessing.
    const client = clientLimitKey(req.ip);
    const wait = deps.authFailures.blockedFor(client, Date.now());
    if (wait > 0) throw retryLater(`Too many failed sign-ins from this client; retry after ${wait} s.`, wait);
    // A session token presented before sign-in is never kept (session fixation): it is ended.
    const before = sessionToken(req);
    const { token } = await checkFailure(deps, req, () =>
      verifySignIn(deps, {
        email: req.body.email,
        code: req.body.code,
        ...(req.body.totp !== undefined && { totp: req.body.totp }),
        client,
        userAgent: req.headers['user-agent'] ?? null,
      }),
    );
    if (before) await endPresentedSession(deps, before);
    setSessionCookie(req, reply, token);
    return { signedIn: true };
  });
  consolePost(app, '/console/api/sign-out', async (req, reply) => {
    const session = await changingSessionOf(deps, req);
    await revokeSession(deps.db, session.email, session.id, deps.clock.now());
    clearSessionCookie(req, reply);
    return { signedOut: true };
  });
}

async function endPresentedSession(deps: Deps, token: string) {
  try {
    const old = await requireSession(deps, token);
    await revokeSession(deps.db, old.email, old.id, deps.clock.now());
  } catch {
    // not a live session: nothing to end
  }
}

function sessionRoutes(app: FastifyInstance, deps: Deps) {
  app.get('/console/api/me', async (req, reply) => {
    reply.headers({ 'cache-control': 'no-store' });
    const session = await sessionOf(deps, req);
    return {
      email: session.email,
      sessionId: session.id,
      csrfToken: await csrfTokenOf(deps, session.id),
      memberships: await membershipsOf(deps, session.email),
      totpEnabled: await isTotpEnabled(deps.db, session.email),
    };
  });
  consolePost(app, '/console/api/credentials', async (req) =>
    issueCredential(deps, await changingSessionOf(deps, req), req.body.environmentId),
  );
  consolePost(app, '/console/api/sessions/list', async (req) => ({
    sessions: await listSessions(deps, await changingSessionOf(deps, req)),
  }));
  consolePost(app, '/console/api/sessions/revoke', async (req) =>
    endSession(deps, await changingSessionOf(deps, req), req.body.sessionId),
  );
}

function totpRoutes(app: FastifyInstance, deps: Deps) {
  consolePost(app, '/console/api/totp/setup', async (req) =>
    setUpTotp(deps, (await changingSessionOf(deps, req)).email),
  );
  consolePost(app, '/console/api/totp/enable', async (req) =>
    enableTotp(deps, (await changingSessionOf(deps, req)).email, req.body.code),
  );
  consolePost(app, '/console/api/totp/disable', async (req) =>
    disableTotp(deps, (await changingSessionOf(deps, req)).email, req.body.code),
  );
}

function memberRoutes(app: FastifyInstance, deps: Deps) {
  consolePost(app, '/console/api/members/list', async (req) => {
    await teamActor(deps, req, req.body.tenantId);
    return listMembers(deps, req.body.tenantId);
  });
  consolePost(app, '/console/api/members/invite', async (req) =>
    inviteMember(deps, await teamActor(deps, req, req.body.tenantId), req.body),
  );
  consolePost(app, '/console/api/members/update', async (req) =>
    changeMemberRole(deps, await teamActor(deps, req, req.body.tenantId), req.body),
  );
  consolePost(app, '/console/api/members/remove', async (req) =>
    removeMember(deps, await teamActor(deps, req, req.body.tenantId), req.body),
  );
}

/** The console's JSON routes (console-assets.ts serves its pages). */
export function consoleApiRoutes(app: FastifyInstance, deps: Deps): void {
  signInRoutes(app, deps);
  sessionRoutes(app, deps);
  memberRoutes(app, deps);
  totpRoutes(app, deps);
}
