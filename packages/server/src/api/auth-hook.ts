import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  type AccessCheck,
  type AuthContext,
  authenticate,
  requireAccess,
} from '../domain/auth/authenticate.js';
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
  app.addHook('onRequest', async (req) => {
    const config = req.routeOptions.config;
    if (config.auth === 'apiKey') {
      req.auth = await authenticate(deps, req.headers.authorization);
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
