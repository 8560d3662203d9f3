// The webhook POST (DESIGN.md §11): the URL checked again (egress-address.ts), its host resolved
// once, every address it resolves to checked, and the connection pinned to the checked address,
// so a DNS answer that changes between check and connect (rebinding) cannot redirect the request.
// Never follows a redirect; keeps the status, the first 4 KB of the answer and the latency.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { addressKind, bareHost, checkWebhookUrl, refusedHostReason } from './egress-address.js';

export { addressKind, checkWebhookUrl, isPublicAddress } from './egress-address.js';

const MAX_BODY_BYTES = 4096;

export interface WebhookResponse {
  /** The HTTP status; absent when no response came. */
  status?: number;
  /** At most the first 4096 bytes of the response body, as UTF-8 (lossy). */
  body: string;
  latencyMs: number;
  /** Retry-After in seconds (delta-seconds or HTTP-date, relative to now), when the response had a valid one. */
  retryAfterSeconds?: number;
  /** A 3xx response's Location (never followed). */
  location?: string;
  /**
   * Why no usable response came: refused (a non-public address, with reason), dns (name not
   * resolved), timeout, connection (refused/reset/TLS error). With a status, the response began
   * but its body did not finish (timeout or reset while reading it).
   */
  error?: { kind: 'refused' | 'dns' | 'timeout' | 'connection'; message: string };
}

export type WebhookLookup = (host: string) => Promise<{ address: string; family: 4 | 6 }[]>;

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allowPrivate: boolean;
  lookup?: WebhookLookup;
}

type Target = { address: string; family: 4 | 6 };
type EgressError = NonNullable<WebhookResponse['error']>;

/**
 * getaddrinfo runs on libuv's thread pool (4 threads, which also sign DKIM) and cannot be
 * cancelled: a name whose server never answers would hold a thread past our timeout. At most
 * LOOKUPS_AT_ONCE lookups run at a time, a slot freed only when its lookup really ends, so hostile
 * names can stall webhooks (each waits its request timeout) but never the pool.
 */
const LOOKUPS_AT_ONCE = 2;
let lookupsRunning = 0;
const lookupQueue: (() => void)[] = [];
const defaultLookup: WebhookLookup = async (host) => {
  if (lookupsRunning >= LOOKUPS_AT_ONCE) await new Promise<void>((r) => lookupQueue.push(r));
  lookupsRunning++;
  try {
    return (await dns.promises.lookup(host, { all: true, verbatim: true })) as Target[];
  } finally {
    lookupsRunning--;
    lookupQueue.shift()?.();
  }
};

// Keep-alive pools, one per protocol and per allowPrivate: a pooled socket was connected to an
// address checked under its own policy, so a request never reuses a socket the other policy made.
const agentOptions = { keepAlive: true, maxSockets: 64 };
const agents = {
  public: { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) },
  private: { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) },
};

export function closeEgressAgents(): void {
  for (const pool of Object.values(agents)) {
    pool.http.destroy();
    pool.https.destroy();
  }
}

const TIMED_OUT = Symbol('timed out');

async function beforeDeadline<T>(work: Promise<T>, deadline: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), Math.max(0, deadline - performance.now()));
  });
  try {
    return await Promise.race([work, expiry]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves the host once and checks every address it resolves to, not only the one used. */
async function resolveTarget(url: URL, req: WebhookRequest, deadline: number): Promise<Target | EgressError> {
  const host = bareHost(url);
  const family = net.isIP(host);
  if (family === 4 || family === 6) return { address: host, family };
  let found: Target[] | typeof TIMED_OUT;
  try {
    found = await beforeDeadline((req.lookup ?? defaultLookup)(host), deadline);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    return { kind: 'dns', message: `the URL's host ${host} did not resolve (${code})` };
  }
  if (found === TIMED_OUT) return { kind: 'timeout', message: `resolving ${host} took too long` };
  if (found.length === 0) return { kind: 'dns', message: `the URL's host ${host} resolved to no address` };
  for (const { address } of found) {
    const kind = addressKind(address);
    if (kind !== null && !req.allowPrivate) {
      return { kind: 'refused', message: refusedHostReason(host, kind, true) };
    }
  }
  const first = found[0]!;
  return { address: first.address, family: net.isIP(first.address) === 6 ? 6 : 4 };
}

/** Connects to the checked address whatever the name resolves to now (no second lookup). */
function pinnedLookup(target: Target): net.LookupFunction {
  return (_host, options, callback) => {
    if (options.all) callback(null, [target]);
    else callback(null, target.address, target.family);
  };
}

// Framing and routing are ours: the caller's headers must not contradict the body or the target.
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);

function requestOptions(url: URL, target: Target, req: WebhookRequest): https.RequestOptions {
  const host = bareHost(url);
  const isLiteral = net.isIP(host) !== 0;
  const headers: Record<string, string | number> = { 'content-type': 'application/json' };
  for (const [name, value] of Object.entries(req.headers)) {
    if (!RESERVED_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
  }
  headers['content-length'] = Buffer.byteLength(req.body);
  const isHttps = url.protocol === 'https:';
  return {
    method: 'POST',
    host, // Node derives the Host header (and the TLS name) from this: the original hostname.
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers,
    agent: agents[req.allowPrivate ? 'private' : 'public'][isHttps ? 'https' : 'http'],
    ...(isLiteral ? {} : { lookup: pinnedLookup(target) }),
    ...(isHttps && !isLiteral ? { servername: host } : {}),
  };
}

function send(
  url: URL,
  target: Target,
  req: WebhookRequest,
  deadline: number,
): Promise<Omit<WebhookResponse, 'latencyMs'>> {
  return new Promise((resolve) => {
    let result: Omit<WebhookResponse, 'latencyMs'> = { body: '' };
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (error?: EgressError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      result.body = Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES).toString('utf8');
      resolve(error === undefined ? result : { ...result, error });
    };
    const transport = url.protocol === 'https:' ? https : http;
    const request = transport.request(requestOptions(url, target, req), (res) => {
      result = { status: res.statusCode, body: '', ...responseHeaders(res) };
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size < MAX_BODY_BYTES) return;
        finish(); // Enough read: the rest of the body is not ours to wait for.
        res.destroy();
      });
      res.on('end', () => finish());
      res.on('error', () => {}); // 'close' reports it
      res.on('close', () =>
        finish(
          res.complete ? undefined : { kind: 'connection', message: 'the connection closed mid-response' },
        ),
      );
    });
    const onTimeout = () => {
      finish({ kind: 'timeout', message: `no complete response within ${req.timeoutMs} ms` });
      request.destroy();
    };
    const timer = setTimeout(onTimeout, Math.max(0, deadline - performance.now()));
    request.on('error', (err: NodeJS.ErrnoException) =>
      finish({ kind: 'connection', message: `${err.code ?? 'error'}: ${err.message}` }),
    );
    request.end(req.body);
  });
}

function responseHeaders(res: http.IncomingMessage): Pick<WebhookResponse, 'retryAfterSeconds' | 'location'> {
  const retryAfterSeconds = parseRetryAfter(res.headers['retry-after'], Date.now());
  const location = res.headers.location;
  return {
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    ...(location === undefined ? {} : { location }),
  };
}

/** POSTs one webhook; never throws, never follows a redirect, never connects to an unchecked address. */
export async function postWebhook(req: WebhookRequest): Promise<WebhookResponse> {
  const started = performance.now();
  const deadline = started + req.timeoutMs;
  const latency = () => Math.round(performance.now() - started);
  // The scheme policy is the caller's; the address policy is always enforced here.
  // http only where private targets are allowed: a URL saved while the switch was on does not go
  // out over http after it was turned off
  const checked = checkWebhookUrl(req.url, { allowHttp: req.allowPrivate, allowPrivate: req.allowPrivate });
  if (!checked.ok)
    return { body: '', latencyMs: latency(), error: { kind: 'refused', message: checked.reason } };
  const target = await resolveTarget(checked.url, req, deadline);
  if ('kind' in target) return { body: '', latencyMs: latency(), error: target };
  const response = await send(checked.url, target, req, deadline);
  return { ...response, latencyMs: latency() };
}

// RFC 9110 §5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime forms a recipient must
// accept. The shape is checked here; Date.parse reads all three once asctime is marked as GMT.
const HTTP_DATE_SHAPES = [
  /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Z][a-z]+day, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/,
];

/** Retry-After as seconds from `now` (ms since the epoch), or undefined when absent or malformed. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) ? seconds : undefined;
  }
  const shape = HTTP_DATE_SHAPES.findIndex((re) => re.test(text));
  const at = shape === -1 ? Number.NaN : Date.parse(shape === 2 ? `${text} GMT` : text);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * The check when an endpoint is saved: the URL's form (checkWebhookUrl), then its host resolved
 * once, refused when it resolves to a non-public address. A name that does not resolve (yet) is
 * taken: every attempt checks again.
 */
export async function checkWebhookTarget(
  raw: string,
  opts: { allowHttp: boolean; allowPrivate: boolean; lookup?: WebhookLookup },
): Promise<{ ok: true; url: URL } | { ok: false; reason: string }> {
  const checked = checkWebhookUrl(raw, opts);
  if (!checked.ok) return checked;
  const target = await resolveTarget(
    checked.url,
    {
      url: raw,
      headers: {},
      body: '',
      timeoutMs: 5000,
      allowPrivate: opts.allowPrivate,
      lookup: opts.lookup,
    },
    performance.now() + 5000,
  );
  if ('kind' in target && target.kind === 'refused') return { ok: false, reason: target.message };
  return checked;
}
