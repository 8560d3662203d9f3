// The dev inbox's webhook catcher (docs/dev-inbox.md, Webhooks): the requests POST
// /dev/inbox/webhooks/catch received, each verified as it arrives. Kept in memory, the newest
// CATCHER_KEEP: unlike captured mail (written to the data directory, since a separate `mailsvc
// worker` may deliver it), every request reaches this process over HTTP, and a development aid
// that a restart empties costs nothing (POST /v1/webhooks/test sends another event).
//
// Verified as a receiver verifies (Standard Webhooks), with the secrets of the endpoints of this
// database whose URL is the one the request was sent to; the HMAC is the `standardwebhooks`
// package's, the time is this server's clock (the runner signs with the same clock), not
// Date.now(), which the package's own verify() reads.
import crypto from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { Clock } from '../../clock.js';
import type { EndpointSecrets } from '../../db/repositories/webhook-endpoints.js';

export const CATCHER_KEEP = 200;

/** How far a webhook-timestamp may be from the clock, either way (the verifiers' 5 minutes). */
const TOLERANCE_S = 5 * 60;

export type CatchVerification =
  | { result: 'verified'; endpointId: string; reason: string }
  | { result: 'failed'; reason: string }
  | { result: 'no_endpoint'; reason: string }
  | { result: 'not_checked'; reason: string };

export interface CaughtWebhook {
  /** 1, 2, 3…: the order of arrival. */
  id: number;
  receivedAt: string;
  /** The URL the request was sent to (its Host and path), as endpoints store theirs. */
  url: string;
  headers: Record<string, string>;
  /** The body as received (UTF-8). */
  body: string;
  verification: CatchVerification;
}

export type CatcherChange = { kind: 'caught'; id: number } | { kind: 'deleted'; count: number };

export interface CatchRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

const NO_ENDPOINT = 'not verified (no endpoint of this database points here)';

/** One string per header (a repeated one, which Node gives as an array, joined as HTTP joins it). */
export function headerRecord(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

/** The body's JSON and its `type`; a body that is not JSON has neither. */
export function readPayload(body: string): { payload: unknown; type: string | null } | null {
  let payload: unknown;
  try {
    payload = JSON.parse(body);
  } catch {
    return null;
  }
  const type = (payload as { type?: unknown } | null)?.type;
  return { payload, type: typeof type === 'string' ? type : null };
}

const isSameSignature = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
};

/** Whether any `v1,` signature of the header is the HMAC of id.timestamp.body under `secret`. */
function isSignedWith(
  secret: string,
  id: string,
  seconds: number,
  body: string,
  signatures: string,
): boolean {
  let expected: string;
  try {
    expected = new Webhook(secret).sign(id, new Date(seconds * 1000), body);
  } catch {
    return false; // not a whsec_ secret
  }
  return signatures.split(' ').some((s) => s.startsWith('v1,') && isSameSignature(s, expected));
}

/** The verdict on one request, given the endpoints whose URL it was sent to. */
export function verifyCaught(req: CatchRequest, endpoints: EndpointSecrets[], now: Date): CatchVerification {
  if (endpoints.length === 0) return { result: 'no_endpoint', reason: NO_ENDPOINT };
  const id = req.headers['webhook-id'];
  const timestamp = req.headers['webhook-timestamp'];
  const signatures = req.headers['webhook-signature'];
  const missing = [
    ['webhook-id', id],
    ['webhook-timestamp', timestamp],
    ['webhook-signature', signatures],
  ].find(([, v]) => !v)?.[0];
  if (missing) return { result: 'failed', reason: `not verified: no ${missing} header` };
  if (!/^\d{1,12}$/.test(timestamp!))
    return { result: 'failed', reason: 'not verified: webhook-timestamp is not a number of seconds' };
  const seconds = Number(timestamp);
  const skew = Math.round(seconds - now.getTime() / 1000);
  if (Math.abs(skew) > TOLERANCE_S)
    return {
      result: 'failed',
      reason: `not verified: webhook-timestamp is ${Math.abs(skew)} s ${skew < 0 ? 'behind' : 'ahead of'} this server's clock (a verifier allows 5 minutes)`,
    };
  for (const e of endpoints) {
    if (isSignedWith(e.secret, id!, seconds, req.body, signatures!))
      return { result: 'verified', endpointId: e.id, reason: `verified with the secret of ${e.id}` };
    const isInGrace = e.previous_secret && e.previous_secret_until && e.previous_secret_until > now;
    if (isInGrace && isSignedWith(e.previous_secret!, id!, seconds, req.body, signatures!))
      return {
        result: 'verified',
        endpointId: e.id,
        reason: `verified with the previous secret of ${e.id} (rotated; it signs until ${e.previous_secret_until!.toISOString()})`,
      };
  }
  const ids = endpoints.map((e) => e.id).join(', ');
  return {
    result: 'failed',
    reason: `not verified: no signature matches the secret of ${ids}, though ${endpoints.length === 1 ? 'it points' : 'they point'} here`,
  };
}

/** The newest CATCHER_KEEP requests the catcher received, and who wants to know of a change. */
export class WebhookCatcher {
  private readonly caught: CaughtWebhook[] = [];
  private lastId = 0;
  private readonly watchers = new Set<(change: CatcherChange) => void>();

  constructor(
    private readonly clock: Clock,
    /** The endpoints whose URL is `url`; undefined without a database. */
    private readonly endpointsAt: ((url: string) => Promise<EndpointSecrets[]>) | undefined,
  ) {}

  /** Verifies and keeps a request; a database that does not answer leaves it not checked. */
  async catch(req: CatchRequest): Promise<CaughtWebhook> {
    const now = this.clock.now();
    const verification = await this.verify(req, now);
    const entry: CaughtWebhook = { id: ++this.lastId, receivedAt: now.toISOString(), ...req, verification };
    this.caught.push(entry);
    if (this.caught.length > CATCHER_KEEP) this.caught.splice(0, this.caught.length - CATCHER_KEEP);
    this.tell({ kind: 'caught', id: entry.id });
    return entry;
  }

  private async verify(req: CatchRequest, now: Date): Promise<CatchVerification> {
    if (!this.endpointsAt)
      return {
        result: 'not_checked',
        reason: 'not checked: this server has no database to read secrets from',
      };
    try {
      return verifyCaught(req, await this.endpointsAt(req.url), now);
    } catch {
      return {
        result: 'not_checked',
        reason: 'not checked: the database did not answer when asked for the endpoints that point here',
      };
    }
  }

  /** Newest first. */
  list(limit = CATCHER_KEEP): CaughtWebhook[] {
    return this.caught.slice(-limit).reverse();
  }

  get count(): number {
    return this.caught.length;
  }

  clear(): number {
    const count = this.caught.splice(0).length;
    if (count > 0) this.tell({ kind: 'deleted', count });
    return count;
  }

  watch(watcher: (change: CatcherChange) => void): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  private tell(change: CatcherChange): void {
    for (const w of this.watchers) w(change);
  }
}
