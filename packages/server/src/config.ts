// The only module that reads process.env. Every key is declared once here with its type,
// default and description; docs/configuration.md is generated from this table.
import path from 'node:path';
import {
  bool,
  httpUrl,
  int,
  logLevel,
  oneOf,
  readSettings,
  redisUrl,
  type Setting,
  type SettingsOf,
  settingsTableRows,
  str,
} from '@mailsvc/contract/settings';
import {
  dnsServerList,
  domainName,
  durationList,
  postgresUrl,
  smtpUrl,
  spfMechanism,
} from './config-parsers.js';
import { DEFAULT_RETRY_DELAYS_MS } from './delivery/retry.js';

const spec = {
  PORT: { description: 'Port of the core HTTP API.', default: 3000, parse: int(0, 65535) },
  HOST: {
    description: 'Interface the HTTP API listens on.',
    default: '127.0.0.1',
    parse: str({ minLength: 1 }),
  },
  MAILSVC_WRAPPER_PORT: {
    description:
      'Port of the template-route wrapper that `mailsvc start` runs beside the API, wired to it with the dev key (also read by `mailsvc wrapper`; its other settings are in packages/wrapper/README.md). 0 picks a free port.',
    default: 3001,
    parse: int(0, 65535),
  },
  MAILSVC_DATA_DIR: {
    description:
      'Directory for the embedded database (PGlite), the lock file, the dev API key and the admin token. Relative paths are resolved against the working directory.',
    default: '.mailsvc',
    parse: str({ minLength: 1 }),
  },
  DATABASE_URL: {
    description:
      'PostgreSQL 14+ connection string. When unset, mailsvc uses embedded PGlite in MAILSVC_DATA_DIR (one process at a time).',
    parse: postgresUrl,
    secret: true,
  },
  MAILSVC_DB_POOL_SIZE: {
    description: 'Maximum PostgreSQL connections per process (ignored for PGlite, which has one).',
    default: 10,
    parse: int(1, 200),
  },
  MAILSVC_PGLITE_SHARED_BUFFERS_MB: {
    description:
      "Embedded database only (no DATABASE_URL): its PostgreSQL shared_buffers in MB, held in the memory of the mailsvc process. 16 keeps `mailsvc start` under 300 MB resident (bench/memory.ts); raise it for a large local database (PostgreSQL's default is 128, PGlite's 160).",
    default: 16,
    parse: int(1, 1024),
  },
  MAILSVC_PUBLIC_URL: {
    description: 'Public base URL of the API, used in links such as unsubscribe pages.',
    default: (c: Record<string, unknown>) =>
      `http://${c.HOST === '0.0.0.0' ? '127.0.0.1' : c.HOST}:${c.PORT}`,
    defaultLabel: 'http://HOST:PORT',
    parse: httpUrl({ base: true }),
  },
  MAILSVC_DEFAULT_SENDING_DOMAIN: {
    description:
      'Sending domain used when neither the environment nor the project has one: the default From is notifications@ this domain.',
    default: 'mailsvc.test',
    parse: domainName,
  },
  MAILSVC_BOUNCE_DOMAIN: {
    description:
      'Domain of the VERP bounce address (Return-Path bounces+<messageId>.<tag>@ this domain; the tag, an HMAC of the message id, makes the address unforgeable). Publish SPF for your relay on it and an MX record pointing at `mailsvc inbound` (docs/feedback.md). A custom sending domain whose return path the domain checker verified (its MX and SPF at bounces.<domain>, docs/domains.md) uses bounces.<that domain> instead, so SPF and DMARC align.',
    default: (c: Record<string, unknown>) => c.MAILSVC_DEFAULT_SENDING_DOMAIN as string,
    defaultLabel: 'MAILSVC_DEFAULT_SENDING_DOMAIN',
    parse: domainName,
  },
  MAILSVC_SMTP_URL: {
    description:
      'Relay the worker delivers to, e.g. smtp://user:pass@smtp.example.com:587 (STARTTLS when the server offers it; smtps:// for implicit TLS). Unset: the capture transport keeps each message as an .eml file in MAILSVC_DATA_DIR/inbox, shown at /dev/inbox.',
    parse: smtpUrl,
    secret: true,
  },
  MAILSVC_INBOUND_PORT: {
    description:
      'Port of `mailsvc inbound`, the SMTP server that reads bounces (DSNs), delivery notices and spam complaints (ARF) sent to the bounce domains; `mailsvc start` runs it too. 0 picks a free port; publish port 25 to it (docs/feedback.md).',
    default: 2525,
    parse: int(0, 65535),
  },
  MAILSVC_INBOUND_HOST: {
    description: 'Interface `mailsvc inbound` listens on (0.0.0.0 to receive mail from the internet).',
    default: (c: Record<string, unknown>) => c.HOST as string,
    defaultLabel: 'HOST',
    parse: str({ minLength: 1 }),
  },
  MAILSVC_INBOUND_MX_HOST: {
    description:
      'Host name of the machine running `mailsvc inbound`: the MX record printed for bounces.<domain> of each custom sending domain (and the one to publish for MAILSVC_BOUNCE_DOMAIN) points here.',
    default: (c: Record<string, unknown>) => c.MAILSVC_BOUNCE_DOMAIN as string,
    defaultLabel: 'MAILSVC_BOUNCE_DOMAIN',
    parse: domainName,
  },
  MAILSVC_INBOUND_ENABLED: {
    description: 'Whether `mailsvc start` also runs the inbound SMTP server (`mailsvc inbound` always does).',
    default: true,
    parse: bool,
  },
  MAILSVC_SMTP_POOL_SIZE: {
    description: 'SMTP connections the worker keeps open to the relay.',
    default: 5,
    parse: int(1, 100),
  },
  MAILSVC_SECRET: {
    description:
      'Key for signing unsubscribe links (at least 32 characters). Unset: a random key is created once and kept in the database, so every replica shares it.',
    parse: str({ minLength: 32 }),
    secret: true,
  },
  MAILSVC_WORKER_CONCURRENCY: {
    description:
      'Messages one worker process delivers at the same time (also its claim batch size). The SMTP pool sends them over MAILSVC_SMTP_POOL_SIZE connections; the rest wait their turn in the process, claimed in batches. On the embedded database the worker shares its one connection with the API, so smaller batches there keep accepts moving.',
    default: (c: Record<string, unknown>) => (c.DATABASE_URL ? 64 : 16),
    defaultLabel: '64 on PostgreSQL, 16 on the embedded database',
    parse: int(1, 500),
  },
  MAILSVC_WORKER_LEASE_MS: {
    description:
      "How long a claimed message is held by its worker. A crashed worker's messages are taken over by another once this has passed; keep it well above the SMTP timeouts.",
    default: 300_000,
    parse: int(1000, 3_600_000),
  },
  MAILSVC_WORKER_POLL_MS: {
    description:
      'Fallback polling interval of the worker. New messages wake it at once (LISTEN/NOTIFY on PostgreSQL, an in-process signal on PGlite); polling finds retries that fall due.',
    default: 1000,
    parse: int(10, 60_000),
  },
  MAILSVC_DNS_SERVERS: {
    description:
      'Comma-separated DNS servers the domain checker asks (an IP, or IP:port, [IPv6]:port), recursive resolvers that follow CNAMEs and delegations themselves; empty: the system’s (/etc/resolv.conf). A timeout or SERVFAIL is "could not check", never "missing".',
    default: '',
    parse: dnsServerList,
  },
  MAILSVC_DNS_TIMEOUT_MS: {
    description:
      'How long the domain checker waits for one DNS answer (tried twice) before it counts as could-not-check.',
    default: 3000,
    parse: int(50, 30_000),
  },
  MAILSVC_DOMAIN_GRACE_HOURS: {
    description:
      'Hours a degraded sending domain (a record seen missing or wrong twice in a row) keeps sending before it fails and its sends answer 403 sending_domain_not_ready.',
    default: 72,
    parse: int(1, 24 * 90),
  },
  MAILSVC_RETURN_PATH_SPF: {
    description:
      'The SPF mechanism each custom domain publishes at bounces.<domain> (v=spf1 <this> -all), authorising your relay’s addresses: include:<your SPF domain>, ip4:…, a:…; empty: include:_spf.<MAILSVC_BOUNCE_DOMAIN>.',
    default: '',
    parse: spfMechanism,
  },
  MAILSVC_DKIM_ROTATE_DAYS: {
    description:
      'Rotate each verified domain’s DKIM key when it is this many days old (a new selector is published by the tenant and verified before the signer switches); 0: only on POST /v1/domains/rotate-dkim.',
    default: 0,
    parse: int(0, 3650),
  },
  MAILSVC_DOMAIN_CHECK_CONCURRENCY: {
    description:
      'Domains one worker process checks at once (each check is a handful of DNS queries) while it delivers no mail; while it does, one at a time, at most ten a second.',
    default: 16,
    parse: int(1, 256),
  },
  MAILSVC_WEBHOOK_ALLOW_PRIVATE: {
    description:
      'Lets webhook endpoints use http and hosts that are or resolve to loopback, private, link-local and other non-public addresses (for development, or internal receivers). Off: https to public addresses only, checked when an endpoint is created and again, with the address connected to, on every attempt.',
    default: false,
    parse: bool,
  },
  MAILSVC_WEBHOOK_CONCURRENCY: {
    description:
      'Webhook deliveries one worker process has in flight at once, apart from the mail slots (a slow endpoint never holds a mail slot).',
    default: 32,
    parse: int(1, 500),
  },
  MAILSVC_WEBHOOK_PER_ENDPOINT: {
    description: 'Webhook deliveries in flight to one endpoint at once, across the worker processes.',
    default: 8,
    parse: int(1, 100),
  },
  MAILSVC_WEBHOOK_POLL_MS: {
    description:
      'How often the webhook runner looks for due deliveries: new events and retries that fell due are sent within this.',
    default: 500,
    parse: int(10, 60_000),
  },
  MAILSVC_WEBHOOK_TIMEOUT_MS: {
    description:
      'How long one webhook POST may take (connect, answer and its first 4 KB) before it counts as failed.',
    default: 15_000,
    parse: int(100, 60_000),
  },
  MAILSVC_RETENTION_DAYS: {
    description:
      'Days message metadata (status, events, idempotency records) is kept after acceptance; the worker deletes older messages that reached a final status, in batches, every 10 minutes.',
    default: 90,
    parse: int(1, 3650),
  },
  MAILSVC_RETRY_DELAYS: {
    description:
      "Waits between delivery attempts after a temporary failure (SMTP 4xx, connection trouble), comma-separated; the last repeats until the message expires (security 1 h, transactional 72 h, notification 24 h). A relay's longer Retry-After wins.",
    default: DEFAULT_RETRY_DELAYS_MS,
    defaultLabel: '1m,5m,15m,30m,1h,2h',
    parse: durationList,
  },
  MAILSVC_ADMIN_TOKEN: {
    description:
      'Bearer token for the admin API (/admin/v1), at least 24 characters. When unset: in embedded mode a random token is kept in MAILSVC_DATA_DIR/admin-token (mode 0600); with DATABASE_URL the admin API is disabled.',
    parse: str({ minLength: 24 }),
    secret: true,
  },
  MAILSVC_METRICS_TOKEN: {
    description:
      'Bearer token Prometheus sends to scrape GET /metrics (at least 24 characters). When unset, /metrics answers only clients on this machine (loopback): behind a reverse proxy on the same host, set the token or deny /metrics there.',
    parse: str({ minLength: 24 }),
    secret: true,
  },
  MAILSVC_METRICS_PORT: {
    description:
      '`mailsvc worker` only: port of a small HTTP server with GET /metrics (and /healthz) for the worker. Unset: none (the API and `mailsvc start` serve /metrics on their own port).',
    parse: int(1, 65535),
  },
  MAILSVC_AUTH_CACHE_TTL_MS: {
    description:
      'How long an API key lookup is cached per process. Bounds how long a revocation or status change takes to reach every replica (at most 5000).',
    default: 2000,
    parse: int(0, 5000),
  },
  MAILSVC_HTTP_REQUEST_TIMEOUT_MS: {
    description:
      'How long a client may take to send a whole request (headers and body); a slower one gets 408 request_timeout and its connection is closed.',
    default: 30_000,
    parse: int(1000, 300_000),
  },
  MAILSVC_SHUTDOWN_TIMEOUT_MS: {
    description:
      'On SIGTERM or SIGINT, how long requests in flight may finish before their connections are closed.',
    default: 10_000,
    parse: int(0, 300_000),
  },
  MAILSVC_REDIS_URL: {
    description:
      'Redis for rate limits shared by every replica (redis:// or rediss://). Unset: each process counts its own. If Redis cannot be reached, each process falls back to its own counts and logs it.',
    parse: redisUrl,
    secret: true,
  },
  MAILSVC_AUTH_FAILURE_LIMIT_PER_MINUTE: {
    description:
      'Failed authentications (malformed, unknown or wrong API keys; wrong console sign-in codes) allowed per client IP per minute; then 429 rate_limited until the minute ends. 0 turns the limit off. Set MAILSVC_TRUST_PROXY behind a proxy, or every client shares its address.',
    default: 30,
    parse: int(0, 1_000_000),
  },
  MAILSVC_DEV_PAGES: {
    description:
      '`mailsvc start` only: the template gallery (/dev/templates; its Send to dev inbox only with the capture transport on the embedded database) and, with the capture transport, the dev inbox (/dev/inbox, which shows every captured message in full). auto: on when HOST is a loopback address; on: also on another bind (a container). The pages answer only requests whose Host is a loopback name, which stops browsers on other sites (DNS rebinding) but not a client that can reach the port and sends Host: localhost itself: with on, publish the port on 127.0.0.1 only (docker run -p 127.0.0.1:3000:3000). off: never.',
    default: 'auto',
    parse: oneOf('auto', 'on', 'off'),
  },
  MAILSVC_CONSOLE: {
    description:
      'The console (docs/console.md): a tenant team signs in at /console with a code mailed through this service from its system environment. on: served by every API process (`mailsvc start`, `mailsvc api`); off: /console answers 404 and no system environment is made.',
    default: 'on',
    parse: oneOf('on', 'off'),
  },
  MAILSVC_TRUST_PROXY: {
    description:
      'The API is behind one reverse proxy: the client address (for the per-IP limits) is the last X-Forwarded-For entry, the one that proxy appended; earlier entries, which clients can write, are ignored.',
    default: false,
    parse: bool,
  },
  LOG_LEVEL: {
    description: 'pino log level.',
    default: 'info',
    parse: logLevel,
  },
} satisfies Record<string, Setting<unknown>>;

export type Config = SettingsOf<typeof spec> & {
  /** MAILSVC_DATA_DIR resolved to an absolute path. */
  readonly dataDir: string;
};

export class ConfigError extends Error {
  constructor(readonly problems: { key: string; message: string }[]) {
    super(`Invalid configuration: ${problems.map((p) => `${p.key} ${p.message}`).join('; ')}`);
  }
}

export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  cwd = process.cwd(),
): Config {
  const { values, problems } = readSettings(spec, env);
  if (problems.length > 0) throw new ConfigError(problems);
  values.dataDir = path.resolve(cwd, values.MAILSVC_DATA_DIR as string);
  return Object.freeze(values) as Config;
}

/**
 * The settings of commands that call a running service's API instead of opening its database
 * (`mailsvc webhooks listen`): read apart from the service's, which they do not need.
 */
const apiCallerSpec = {
  MAILSVC_URL: {
    description: 'Base URL of the mailsvc API that `mailsvc webhooks listen` calls (its `--url` wins).',
    default: 'http://127.0.0.1:3000',
    parse: httpUrl({ base: true }),
  },
  MAILSVC_API_KEY: {
    description:
      'The full-scope API key (`msk_…`) `mailsvc webhooks listen` calls it with (its `--api-key` wins): the key of the environment whose events it forwards. (`mailsvc wrapper` reads a key of the same name: packages/wrapper/README.md.)',
    parse: str({ minLength: 1 }),
    secret: true,
  },
} satisfies Record<string, Setting<unknown>>;

export type ApiCallerConfig = SettingsOf<typeof apiCallerSpec>;

export function loadApiCallerConfig(env: Record<string, string | undefined> = process.env): ApiCallerConfig {
  const { values, problems } = readSettings(apiCallerSpec, env);
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(values) as ApiCallerConfig;
}

/** docs/configuration.md, generated from the tables above. */
export function renderConfigurationDoc(): string {
  const rows = settingsTableRows(spec);
  return [
    '# Configuration',
    '',
    'Generated from `packages/server/src/config.ts` by `npm run docs`; do not edit by hand.',
    '',
    'mailsvc reads its settings from environment variables, checks them all at start-up and refuses to start',
    'on a bad value, naming the key. Empty values count as unset.',
    '',
    '| key | default | meaning |',
    '|---|---|---|',
    ...rows,
    '',
    '## Commands that call the API',
    '',
    '`mailsvc webhooks listen` calls a running service over its API instead of opening the database, and reads',
    'only these:',
    '',
    '| key | default | meaning |',
    '|---|---|---|',
    ...settingsTableRows(apiCallerSpec),
    '',
  ].join('\n');
}
