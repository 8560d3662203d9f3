// Unsubscribe tokens: HMAC-SHA256 over (environment, address, scope), so a link cannot be forged
// or moved to another address or environment. Stateless: a link keeps working after the
// message's metadata is deleted. The token carries the address (base64url), which the link's
// holder — the recipient — already knows; logs print /u/[token] only.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SUBSCRIPTION_SCOPE = 'app_notifications';
export type SubscriptionScope = typeof SUBSCRIPTION_SCOPE;

export interface UnsubscribeTarget {
  environmentId: string;
  email: string;
  scope: SubscriptionScope;
}

const mac = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest();

export function createUnsubscribeToken(key: Buffer, target: UnsubscribeTarget): string {
  const payload = `${target.environmentId}\n${target.email}\n${target.scope}`;
  return `${Buffer.from(payload).toString('base64url')}.${mac(key, payload).toString('base64url')}`;
}

/** The target of a genuine token; null for anything else. */
export function verifyUnsubscribeToken(key: Buffer, token: string): UnsubscribeTarget | null {
  if (token.length > 1024) return null;
  const dot = token.indexOf('.');
  if (dot <= 0 || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const payload = Buffer.from(token.slice(0, dot), 'base64url').toString('utf8');
  const given = Buffer.from(token.slice(dot + 1), 'base64url');
  if (!timingSafeEqual(given, mac(key, payload))) return null;
  const [environmentId, email, scope, ...rest] = payload.split('\n');
  if (!environmentId || !email || scope !== SUBSCRIPTION_SCOPE || rest.length > 0) return null;
  return { environmentId, email, scope };
}
