import { createHash, timingSafeEqual } from 'node:crypto';
import { rateLimitHeaders } from '@mailsvc/contract/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  type AccessCheck,
  type AuthContext,
  authenticate,
  requireAccess,
} from '../domain/auth/authenticate.js';
import { apiKeyPolicy } from '../domain/auth/rate-limit.js';
import type { Deps } from '../domain/deps.js';
import { ApiError } from '../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** 'apiKey': a tenant API key (and `access` checks); 'admin': the admin token; default none. */
    auth?: 'apiKey' | 'admin';
    access?: readonly AccessCheck[];
    /** POST bodies must be JSON (415 otherwise), checked after authentication. */
    jsonBody?: boolean;
    is405?: boolean;
  }
  interface FastifyRequest {
    auth?: AuthContext;
  }
}

/**
 * A client over its failed-authentication allowance is refused before its key is even parsed; a
 * wrong key counts against its IP.
 */
async function authenticateWithinLimits(deps: Deps, req: FastifyRequest): Promise<AuthContext> {
  const now = deps.clock.now().getTime();
  const waitSeconds = deps.authFailures.blockedFor(req.ip, now);
  if (waitSeconds > 0) throw tooManyFailures(waitSeconds);
  try {
    return await authenticate(deps, req.headers.authorization);
  } catch (err) {
    if (err instanceof ApiError && err.code === 'invalid_api_key') {
      const decision = await deps.authFailures.recordFailure(req.ip, now);
      if (!decision.ok) throw tooManyFailures(decision.retryAfterSeconds);
    }
    throw err;
  }
}

const tooManyFailures = (seconds: number) =>
  new ApiError(
    'rate_limited',
    `Too many failed authentications from this client; retry after ${seconds} s.`,
    undefined,
    { 'Retry-After': String(seconds) },
  );

/** The authenticated caller of an apiKey route. */
export function authOf(req: FastifyRequest): AuthContext {
  if (!req.auth) throw new Error('route is not configured with auth: apiKey');
  return req.auth;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest();

/**
 * Authentication runs in onRequest, before the body is read: the seed's order puts key errors
 * before body errors, and an unauthenticated caller cannot make the server parse anything.
 */
export function installAuth(app: FastifyInstance, deps: Deps, adminToken: string | undefined) {
  const adminDigest = adminToken ? sha256(adminToken) : undefined;
  app.decorateRequest('auth', undefined);
  app.addHook('onRequest', async (req, reply) => {
    const config = req.routeOptions.config;
    if (config.auth === 'apiKey') {
      req.auth = await authenticateWithinLimits(deps, req);
      // The key's own rate (its plan's), before anything else is done for it.
      const policy = apiKeyPolicy(req.auth.rateLimit);
      const decision = await deps.rateLimits.limiter(policy).consume(req.auth.keyId);
      const headers = rateLimitHeaders(policy, decision);
      if (!decision.ok) {
        throw new ApiError(
          'rate_limited',
          `This API key is over its rate limit (${policy.points} requests per second); retry after ${decision.retryAfterSeconds} s.`,
          undefined,
          headers,
        );
      }
      reply.headers(headers);
      requireAccess(req.auth, config.access ?? []);
    } else if (config.auth === 'admin') {
      const token = /^Bearer[ \t]+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim() ?? '';
      if (!adminDigest || !timingSafeEqual(sha256(token), adminDigest)) {
        throw new ApiError('invalid_admin_token', 'Send the admin token as `Authorization: Bearer <token>`.');
      }
    }
    if (config.jsonBody && req.method === 'POST') {
      const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/json') {
        throw new ApiError('unsupported_media_type', 'Send the body as Content-Type: application/json.');
      }
    }
  });
}
