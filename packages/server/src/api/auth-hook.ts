import { createHash, timingSafeEqual } from 'node:crypto';
import type { KeyScope } from '@mailsvc/contract/api';
import { clientLimitKey, rateLimitHeaders } from '@mailsvc/contract/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  type AccessCheck,
  type AuthContext,
  authenticate,
  requireAccess,
  requireRole,
  requireScope,
} from '../domain/auth/authenticate.js';
import { apiKeyPolicy } from '../domain/auth/rate-limit.js';
import type { Deps } from '../domain/deps.js';
import { ApiError } from '../errors.js';
import { requireJsonContentType } from './json-body.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** 'apiKey': a tenant API key (and `access` checks); 'admin': the admin token; default none. */
    auth?: 'apiKey' | 'admin';
    access?: readonly AccessCheck[];
    /** apiKey routes: the key scopes that may call it (the contract's; default full only). */
    scopes?: readonly KeyScope[];
    /** POST bodies must be JSON (415 otherwise), checked after authentication. */
    jsonBody?: boolean;
    is405?: boolean;
  }
  interface FastifyRequest {
    auth?: AuthContext;
  }
}

/**
 * Wrong credentials (an API key, the admin token, a relay event's signature) count against the client's address (by its /64 for IPv6). A client over its
 * allowance gets 429 for every wrong credential until its window ends, without another count; a
 * correct one still passes (a shared NAT or egress address must not lock out its good users).
 */
export async function checkFailure<T>(
  deps: Deps,
  req: FastifyRequest,
  attempt: () => Promise<T> | T,
): Promise<T> {
  const client = clientLimitKey(req.ip);
  try {
    return await attempt();
  } catch (err) {
    if (
      err instanceof ApiError &&
      (err.code === 'invalid_api_key' ||
        err.code === 'invalid_admin_token' ||
        err.code === 'invalid_signature' ||
        err.code === 'invalid_sign_in_code')
    ) {
      const now = Date.now();
      const waitSeconds = deps.authFailures.blockedFor(client, now);
      const decision =
        waitSeconds > 0
          ? { ok: false, remaining: 0, resetSeconds: waitSeconds, retryAfterSeconds: waitSeconds }
          : await deps.authFailures.recordFailure(client, now);
      if (!decision.ok) {
        throw new ApiError(
          'rate_limited',
          `Too many failed authentications from this client; retry after ${decision.retryAfterSeconds} s.`,
          undefined,
          rateLimitHeaders(deps.authFailures.policy, decision),
        );
      }
    }
    throw err;
  }
}

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
  // When the key was last used: noted once the answer is sent, so the write (at most once a minute
  // per key, domain/auth/key-usage.ts) never runs beside the request's own work.
  app.addHook('onResponse', async (req) => {
    if (req.auth && !req.auth.member) deps.keyUsage.touch(req.auth.keyId, deps.clock.now());
  });
  app.addHook('onRequest', async (req, reply) => {
    const config = req.routeOptions.config;
    if (config.auth === 'apiKey') {
      req.auth = await checkFailure(deps, req, () => authenticate(deps, req.headers.authorization));
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
      requireScope(req.auth, config.scopes ?? ['full']);
      requireRole(req.auth, config.operationId);
      requireAccess(req.auth, config.access ?? []);
    } else if (config.auth === 'admin') {
      const token = /^Bearer[ \t]+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim() ?? '';
      await checkFailure(deps, req, () => {
        if (!adminDigest || !timingSafeEqual(sha256(token), adminDigest)) {
          throw new ApiError(
            'invalid_admin_token',
            'Send the admin token as `Authorization: Bearer <token>`.',
          );
        }
      });
    }
    if (config.jsonBody && req.method === 'POST') requireJsonContentType(req.headers['content-type']);
  });
}
