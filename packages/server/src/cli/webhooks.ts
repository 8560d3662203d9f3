// `mailsvc webhooks listen --forward-to URL`: an environment's webhook events forwarded to an app
// on this machine for as long as it runs (like `stripe listen`; docs/webhooks.md, Developing
// locally). It uses the API as any client does: a listener on 127.0.0.1 (a free port) becomes an
// endpoint of the key's environment (POST /v1/webhooks/create), and each request the webhook
// runner sends it is passed on as it came — the same body bytes and webhook-* headers, so the
// signature verifies in the app with the secret printed at start — and answered with the app's
// status (so a failure is retried on the runner's schedule), or 502 when the app cannot be
// reached. SIGINT or SIGTERM deletes the endpoint. The service must allow private targets
// (MAILSVC_WEBHOOK_ALLOW_PRIVATE=true), or it refuses the 127.0.0.1 URL; this then says so.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { httpUrl, SettingValueError } from '@mailsvc/contract/settings';
import { loadApiCallerConfig } from '../config.js';
import type { Io } from './main.js';
import { untilStopSignal } from './stop-signal.js';

const USAGE = `Usage: mailsvc webhooks listen --forward-to URL [--events TYPE,…] [--url URL] [--api-key KEY]

  Forwards the webhook events of an API key's environment to an app on this machine while it
  runs. It registers an endpoint pointing at a listener on 127.0.0.1, prints the endpoint's
  signing secret (your app verifies with it), passes each event on to --forward-to as it came
  (the same body and webhook-* headers) and answers mailsvc with your app's status, so a failure
  is retried (502 when the app cannot be reached). Ctrl+C deletes the endpoint.

  --forward-to URL   where your app receives webhooks, such as http://localhost:4000/hooks
  --events TYPE,…    only these types (message.bounced,message.complained); default: every type
  --url URL          the mailsvc API (default: MAILSVC_URL, else http://127.0.0.1:3000)
  --api-key KEY      a full-scope key of the environment (default: MAILSVC_API_KEY)

  The service must send webhooks to private addresses: start it with
  MAILSVC_WEBHOOK_ALLOW_PRIVATE=true (in development: MAILSVC_WEBHOOK_ALLOW_PRIVATE=true npm start).`;

const NAME = 'mailsvc webhooks listen';
const API_TIMEOUT_MS = 10_000;
/** Longer than the runner waits (MAILSVC_WEBHOOK_TIMEOUT_MS, at most 60 s): its timeout decides. */
const FORWARD_TIMEOUT_MS = 65_000;
/** What is passed on to the app: the signature's headers and the body's type. */
const FORWARDED = /^(?:content-type|user-agent|webhook-[a-z-]+)$/;
/** What of the app's answer is passed back to the runner (Retry-After is honoured by it). */
const ANSWERED = ['content-type', 'retry-after', 'location'];

interface ListenArgs {
  forwardTo: URL;
  events?: string[];
  url?: string;
  apiKey?: string;
}

function parseListenArgs(args: string[]): { ok: true; args: ListenArgs } | { ok: false; problem: string } {
  let values: { 'forward-to'?: string; events?: string; url?: string; 'api-key'?: string };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        'forward-to': { type: 'string' },
        events: { type: 'string' },
        url: { type: 'string' },
        'api-key': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    return { ok: false, problem: (err as Error).message.split('\n')[0]!.replace(/\. To specify.*$/, '') };
  }
  if (!values['forward-to']) return { ok: false, problem: '--forward-to is required' };
  let forwardTo: URL;
  try {
    forwardTo = new URL(values['forward-to']);
  } catch {
    return { ok: false, problem: '--forward-to: expected an http URL such as http://localhost:4000/hooks' };
  }
  if (forwardTo.protocol !== 'http:' && forwardTo.protocol !== 'https:')
    return { ok: false, problem: '--forward-to: expected an http URL such as http://localhost:4000/hooks' };
  let url: string | undefined;
  try {
    url = values.url === undefined ? undefined : httpUrl({ base: true })(values.url);
  } catch (err) {
    if (!(err instanceof SettingValueError)) throw err;
    return { ok: false, problem: `--url ${err.message}` };
  }
  const events = values.events?.split(',').map((e) => e.trim());
  if (events?.some((e) => e === ''))
    return { ok: false, problem: '--events: expected types such as message.sent,message.bounced' };
  return {
    ok: true,
    args: { forwardTo, events, url, apiKey: values['api-key'] },
  };
}

/** Why a fetch failed: the socket's error code (ECONNREFUSED), else what undici says. */
function fetchFailure(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string; errors?: { code?: string }[] } }).cause;
  return cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message ?? (err as Error).message;
}

/** A refusal to report on stderr and exit with. */
class ListenError extends Error {}

interface ApiAnswer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: read by the few fields each call needs
  body: any;
}

async function callApi(base: string, apiKey: string, path: string, body: unknown): Promise<ApiAnswer> {
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(API_TIMEOUT_MS),
    });
  } catch (err) {
    throw new ListenError(
      `cannot reach mailsvc at ${base} (${fetchFailure(err)}): is it running? (--url or MAILSVC_URL)`,
    );
  }
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    throw new ListenError(
      `${base}${path} answered ${res.status} without mailsvc's JSON: is ${base} the API's base URL?`,
    );
  }
}

/** The endpoint pointing at `listenerUrl`, or a ListenError that says what to do. */
async function createEndpoint(base: string, apiKey: string, listenerUrl: string, events?: string[]) {
  const res = await callApi(base, apiKey, '/v1/webhooks/create', {
    url: listenerUrl,
    description: NAME,
    ...(events && { events }),
  });
  if (res.status === 200)
    return { id: res.body.endpoint.endpointId as string, secret: res.body.secret as string };
  const { code, message, details } = (res.body.error ?? {}) as {
    code?: string;
    message?: string;
    details?: { path: string; message: string }[];
  };
  if (code === 'webhook_url_not_allowed')
    throw new ListenError(
      `${base} sends webhooks only to https on public addresses, so it refused ${listenerUrl} (400 webhook_url_not_allowed). Start it with MAILSVC_WEBHOOK_ALLOW_PRIVATE=true (in development: MAILSVC_WEBHOOK_ALLOW_PRIVATE=true npm start) and run this again.`,
    );
  const which =
    res.status === 401 || res.status === 403
      ? ' (a full-scope key of the environment: --api-key or MAILSVC_API_KEY)'
      : details?.length
        ? ` (${/^\/events\b/.test(details[0]!.path) ? '--events' : details[0]!.path}: ${details[0]!.message})`
        : '';
  throw new ListenError(`${base} refused the endpoint: ${res.status} ${code}: ${message}${which}`);
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function eventType(body: Buffer): string {
  try {
    const type = (JSON.parse(body.toString('utf8')) as { type?: unknown }).type;
    return typeof type === 'string' ? type : '(no type)';
  } catch {
    return '(not JSON)';
  }
}

/** One request of the runner: passed on to the app, the app's answer passed back, one line printed. */
async function forward(req: http.IncomingMessage, res: http.ServerResponse, target: URL, io: Io) {
  const body = await readBody(req);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (FORWARDED.test(name) && typeof value === 'string') headers[name] = value;
  let status: number;
  let note = '';
  try {
    const answer = await fetch(target, {
      method: 'POST',
      headers,
      body: new Uint8Array(body),
      redirect: 'manual', // the runner does not follow one either: the app's 3xx goes back as it is
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    status = answer.status;
    const passed: Record<string, string> = {};
    for (const name of ANSWERED) {
      const value = answer.headers.get(name);
      if (value !== null) passed[name] = value;
    }
    const answered = Buffer.from(await answer.arrayBuffer()); // whole, before any of it is sent on
    res.writeHead(status, passed).end(answered);
  } catch (err) {
    const isTimeout = (err as Error).name === 'TimeoutError';
    status = isTimeout ? 504 : 502;
    note = isTimeout
      ? ` (your app did not answer within ${FORWARD_TIMEOUT_MS / 1000} s)`
      : ` (your app could not be reached: ${fetchFailure(err)})`;
    res
      .writeHead(status, { 'content-type': 'text/plain; charset=utf-8' })
      .end(`${NAME}: ${target.href}${note}`);
  }
  io.stdout(
    `${new Date().toISOString()}  ${eventType(body)}  ${headers['webhook-id'] ?? '(no webhook-id)'}  → ${status}${note}`,
  );
}

/** The listener on 127.0.0.1 the endpoint points at. */
async function startListener(target: URL, io: Io): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    forward(req, res, target, io).catch((err: unknown) => {
      io.stderr(`${NAME}: ${(err as Error).message}`);
      if (!res.headersSent) res.writeHead(502).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function listen(args: ListenArgs, io: Io): Promise<number> {
  const settings = loadApiCallerConfig();
  const base = args.url ?? settings.MAILSVC_URL;
  const apiKey = args.apiKey ?? settings.MAILSVC_API_KEY;
  if (!apiKey) {
    io.stderr(`${NAME}: needs a full-scope API key of the environment: --api-key or MAILSVC_API_KEY`);
    return 2;
  }
  const listener = await startListener(args.forwardTo, io);
  let endpoint: { id: string; secret: string };
  try {
    endpoint = await createEndpoint(base, apiKey, listener.url, args.events);
  } catch (err) {
    await listener.close();
    if (!(err instanceof ListenError)) throw err;
    io.stderr(`${NAME}: ${err.message}`);
    return 1;
  }
  io.stdout(
    [
      '',
      `${NAME} is forwarding`,
      `  Events     ${args.events?.join(', ') ?? 'every type'}, from ${base}`,
      `  Endpoint   ${endpoint.id} → ${listener.url} (deleted when this stops)`,
      `  To         ${args.forwardTo.href}`,
      `  Secret     ${endpoint.secret}`,
      '             (your app verifies with it; docs/webhooks.md, Verifying)',
      '',
      'Press Ctrl+C to stop.',
      '',
    ].join('\n'),
  );
  await untilStopSignal(io, NAME);
  return stop(base, apiKey, endpoint.id, listener, io);
}

async function stop(
  base: string,
  apiKey: string,
  endpointId: string,
  listener: { close: () => Promise<void> },
  io: Io,
): Promise<number> {
  let code = 0;
  try {
    const res = await callApi(base, apiKey, '/v1/webhooks/delete', { endpointId });
    if (res.status === 200 || res.body.error?.code === 'webhook_endpoint_not_found')
      io.stdout(`${NAME}: deleted endpoint ${endpointId}`);
    else throw new ListenError(`${res.status} ${res.body.error?.code}: ${res.body.error?.message}`);
  } catch (err) {
    if (!(err instanceof ListenError)) throw err;
    io.stderr(
      `${NAME}: could not delete endpoint ${endpointId} (${err.message}); delete it with POST /v1/webhooks/delete`,
    );
    code = 1;
  }
  await listener.close();
  return code;
}

export async function runWebhooks(args: string[], io: Io): Promise<number> {
  const [action, ...rest] = args;
  if (
    action === undefined ||
    ['--help', '-h', 'help'].includes(action) ||
    rest.includes('--help') ||
    rest.includes('-h')
  ) {
    io.stdout(USAGE);
    return action === undefined ? 2 : 0;
  }
  const usage = (problem: string) => {
    io.stderr(
      `mailsvc webhooks: ${problem} (usage: mailsvc webhooks listen --forward-to URL [--events TYPE,…])`,
    );
    return 2;
  };
  if (action !== 'listen') return usage(`unknown action '${action}'`);
  const parsed = parseListenArgs(rest);
  if (!parsed.ok) return usage(parsed.problem);
  return listen(parsed.args, io);
}
