// A real HTTP receiver on 127.0.0.1 for webhook tests (node:http): it keeps every request as it
// arrived (headers, raw body, time) and answers each from a script (status, headers, body, or no
// answer at all), else 204. Events are checked with the published `standardwebhooks` and `svix` verifiers.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';

export interface ReceivedWebhook {
  headers: http.IncomingHttpHeaders;
  body: string;
  path: string;
  at: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Never answer (the sender's timeout ends the request). */
  hang?: boolean;
}

export interface WebhookReceiver {
  url: string;
  port: number;
  received: ReceivedWebhook[];
  /** Answers for the next requests, in order; then 204. */
  answer(...answers: Answer[]): void;
  /** The event of a request, verified with `secret` by the standardwebhooks package (throws if not). */
  verify(
    r: ReceivedWebhook,
    secret: string,
  ): { type: string; timestamp: string; data: Record<string, unknown> };
  /** Requests' bodies parsed, in arrival order. */
  events(): { type: string; data: Record<string, unknown>; id: string }[];
  close(): Promise<void>;
}

/**
 * standardwebhooks refuses a timestamp more than 5 minutes from Date.now(): tests run on a movable
 * clock, so the check is made as at the request's own timestamp (the signature is still checked).
 */
export function verifyAtItsTime(
  r: { headers: http.IncomingHttpHeaders; body: string },
  secret: string,
): { type: string; timestamp: string; data: Record<string, unknown> } {
  const realNow = Date.now;
  Date.now = () => Number(r.headers['webhook-timestamp']) * 1000;
  const headers = {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  };
  try {
    // Svix's verifier (the service Resend and others sign with) must agree with the reference one.
    new SvixWebhook(secret).verify(r.body, headers);
    return new Webhook(secret).verify(r.body, headers) as {
      type: string;
      timestamp: string;
      data: Record<string, unknown>;
    };
  } finally {
    Date.now = realNow;
  }
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const script: Answer[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        path: req.url ?? '/',
        at: Date.now(),
      });
      const a = script.shift() ?? { status: 204 };
      if (a.hang) {
        hanging.add(res);
        return;
      }
      res.writeHead(a.status, a.headers);
      res.end(a.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    answer: (...answers) => script.push(...answers),
    verify: (r, secret) => verifyAtItsTime(r, secret),
    events: () =>
      received.map((r) => ({
        ...(JSON.parse(r.body) as { type: string; data: Record<string, unknown> }),
        id: String(r.headers['webhook-id']),
      })),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
