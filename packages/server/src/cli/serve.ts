import net from 'node:net';
import type { RunningWrapper } from '@mailsvc/wrapper';
import { buildApp, closeApp } from '../api/app.js';
import { ConfigError, loadConfig } from '../config.js';
import { listTenantMembers } from '../db/repositories/console-people.js';
import { devPagesFor } from '../dev/dev-access.js';
import { devPageRoutes } from '../dev/dev-pages.js';
import { ensureDemo } from '../domain/admin/bootstrap.js';
import { createKey } from '../domain/admin/keys-domains-usage.js';
import { authenticate } from '../domain/auth/authenticate.js';
import { inviteMember } from '../domain/console/members.js';
import type { Deps } from '../domain/deps.js';
import { ApiError } from '../errors.js';
import { openRuntime, readSecretFile, resolveAdminToken, writeSecretFile } from '../runtime.js';
import { StartupError } from '../startup-error.js';
import { startLocalInbound } from './inbound.js';
import type { Io } from './main.js';
import { untilStopSignal } from './stop-signal.js';
import { checkDeliverySettings, startDelivery } from './worker.js';

const DEV_KEY_FILE = 'dev-api-key';
/** The wrapper's key in `mailsvc start`: send scope, as a wrapper's key should be (DESIGN.md §12). */
const WRAPPER_KEY_FILE = 'wrapper-api-key';

function portError(err: unknown, port: number, host: string): StartupError | null {
  const code = (err as { code?: string }).code;
  if (code === 'EADDRINUSE')
    return new StartupError(`port ${port} on ${host} is in use: stop what is using it, or set PORT`);
  if (code === 'EACCES') return new StartupError(`port ${port} on ${host} needs more privileges: set PORT`);
  if (code === 'EADDRNOTAVAIL')
    return new StartupError(`${host} is not an address of this machine: set HOST`);
  return null;
}

/** An address to connect to for a listening interface: a wildcard one is reached on loopback. */
const reachableHost = (h: string) => (h === '0.0.0.0' || h === '::' ? '127.0.0.1' : h);

/** For the banner: where rate limits are counted, after waiting briefly for Redis. */
async function describeRateLimits(deps: Deps): Promise<string> {
  if (deps.rateLimits.kind !== 'redis') return 'per process (MAILSVC_REDIS_URL shares them between replicas)';
  const host = new URL(deps.config.MAILSVC_REDIS_URL!).host;
  return (await deps.rateLimits.ready(2000))
    ? `shared through Redis at ${host}`
    : `per process for now: Redis at ${host} does not answer (see the log)`;
}

/** Binds and releases the port once, so a busy port is reported before anything is created. */
async function ensurePortFree(port: number, host: string): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err) => reject(portError(err, port, host) ?? err));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/**
 * A key of the demo environment kept in the data directory (mode 0600), the same on every start;
 * made again if it was revoked, its scope deleted, or it is not of `scope`.
 */
async function ensureKey(deps: Deps, dataDir: string, file: string, scope: 'full' | 'send'): Promise<string> {
  const demo = await ensureDemo(deps);
  const saved = readSecretFile(dataDir, file);
  if (saved) {
    try {
      const auth = await authenticate(deps, `Bearer ${saved}`);
      if (auth.environmentId === demo.environmentId && auth.scope === scope) return saved;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
    }
  }
  // The key and its audit event together, as every admin change (createKey's auditedChange).
  const { apiKey } = await createKey(
    deps,
    {
      environment: demo.environmentId,
      scope,
      name: scope === 'send' ? 'wrapper (mailsvc start)' : 'dev key (mailsvc start)',
    },
    'system:start',
  );
  writeSecretFile(dataDir, file, apiKey);
  return apiKey;
}

interface Banner {
  mode: 'start' | 'api';
  config: ReturnType<typeof loadConfig>;
  baseUrl: string;
  /** Where the database is. */
  database: string;
  /** Where rate limits are counted (describeRateLimits). */
  limits: string;
  delivery: { description: string } | undefined;
  inbound: { port: number } | string | undefined;
  devKey: string | undefined;
  devPages: ReturnType<typeof devPagesFor>;
  wrapper: RunningWrapper | string | undefined;
  /** The demo tenant's owner on a fresh `mailsvc start` (its sign-in code lands in the dev inbox). */
  consoleOwner: string | undefined;
}

/** What `mailsvc start` and `mailsvc api` print once they listen: where everything is, how to try it. */
function bannerLines({
  mode,
  config,
  baseUrl,
  database,
  limits,
  delivery,
  inbound,
  devKey,
  devPages,
  wrapper,
  consoleOwner,
}: Banner): string[] {
  const lines = [
    '',
    `mailsvc ${mode} is running`,
    `  API        ${baseUrl}`,
    `  Database   ${database}`,
    ...(delivery ? [`  Delivery   ${delivery.description}`] : []),
    ...(inbound
      ? typeof inbound === 'string'
        ? [`  Inbound    not started: ${inbound}`]
        : [
            `  Inbound    smtp://${reachableHost(config.MAILSVC_INBOUND_HOST)}:${inbound.port} for @${config.MAILSVC_BOUNCE_DOMAIN} (bounces, complaints)`,
          ]
      : []),
    ...(config.MAILSVC_CONSOLE === 'on'
      ? [
          `  Console    ${baseUrl}/console`,
          consoleOwner
            ? `             (sign in as ${consoleOwner}, owner of the demo tenant: the code lands in the dev inbox)`
            : '             (invite a first owner: mailsvc admin members invite --tenant ID --email ADDRESS --role owner)',
        ]
      : []),
    `  Limits     ${limits}`,
    `  Metrics    ${baseUrl}/metrics (${config.MAILSVC_METRICS_TOKEN ? 'bearer token' : 'this machine only'}; docs/operations.md)`,
  ];
  if (devKey) {
    lines.push(
      `  API key    ${devKey}`,
      `             (dev key for the demo environment, kept in ${config.dataDir}/${DEV_KEY_FILE})`,
      ...(devPages.templates ? [`  Templates  ${baseUrl}/dev/templates`] : []),
      ...(wrapper
        ? typeof wrapper === 'string'
          ? [`  Wrapper    not started: ${wrapper}`]
          : [`  Wrapper    ${wrapper.url}`]
        : []),
      ...(devPages.inbox
        ? [
            `  Inbox      ${baseUrl}/dev/inbox`,
            `  Webhooks   ${baseUrl}/dev/inbox/webhooks (${
              config.MAILSVC_WEBHOOK_ALLOW_PRIVATE
                ? `a catcher for endpoints: ${baseUrl}/dev/inbox/webhooks/catch`
                : 'its catcher needs MAILSVC_WEBHOOK_ALLOW_PRIVATE=true'
            })`,
          ]
        : []),
      '',
      'Try it:',
      `  curl -s ${baseUrl}/v1/quota -H 'Authorization: Bearer ${devKey}'`,
      `  curl -s ${baseUrl}/v1/send -H 'Authorization: Bearer ${devKey}' -H 'Content-Type: application/json' \\`,
      `    -d '{"templateId":"login-code","to":"jane@example.com","data":{"code":"482913"}}'`,
      ...(devPages.inbox ? [`  then open ${baseUrl}/dev/inbox to read it`] : []),
      ...(wrapper && typeof wrapper !== 'string'
        ? [
            `  curl -s ${wrapper.url}/auth/login-code -H 'Content-Type: application/json' \\`,
            `    -d '{"to":"jane@example.com","data":{"code":"482913"}}'`,
          ]
        : []),
    );
  }
  if (devPages.warning) lines.push('', `Warning: ${devPages.warning}.`);
  lines.push('', 'Press Ctrl+C to stop.', '');
  return lines;
}

export async function runServe(mode: 'start' | 'api', _args: string[], io: Io): Promise<number> {
  const config = loadConfig();
  if (mode === 'api' && !config.DATABASE_URL) {
    // The embedded database admits one process: a separate worker could never deliver what
    // this API accepts.
    throw new StartupError(
      'needs DATABASE_URL (PostgreSQL). On the embedded database run `mailsvc start`, which runs the API and the delivery worker in one process.',
    );
  }
  if (mode === 'start') checkDeliverySettings(config);
  // Before anything is created or migrated: a busy port is the commonest start-up failure.
  await ensurePortFree(config.PORT, config.HOST);
  const runtime = await openRuntime(config, {
    command: mode,
    servesHttp: true,
    // The first start is otherwise silent while the embedded database is made.
    onCreateEmbedded: (dir) =>
      io.stdout(`mailsvc: making the embedded database in ${dir} (first start only; 20–60 s)…`),
  });
  const { deps, database } = runtime;
  const adminToken = resolveAdminToken(config);
  // The gallery sends only with the capture transport on the embedded database (dev-access.ts).
  const devPages = devPagesFor(config, mode, database.kind);
  const app = await buildApp(deps, { adminToken, extraRoutes: devPageRoutes(deps, devPages) });
  const devKey = mode === 'start' ? await ensureKey(deps, config.dataDir, DEV_KEY_FILE, 'full') : undefined;
  try {
    await app.listen({ port: config.PORT, host: config.HOST });
  } catch (err) {
    await runtime.close();
    throw portError(err, config.PORT, config.HOST) ?? err;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const host = reachableHost(config.HOST);
  const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  database.lock?.update({ adminUrl: adminToken ? baseUrl : undefined });
  const wrapper = devKey
    ? await startLocalWrapper(
        config,
        baseUrl,
        await ensureKey(deps, config.dataDir, WRAPPER_KEY_FILE, 'send'),
        deps,
      )
    : undefined;
  const delivery =
    mode === 'start' ? await startDelivery(deps, { isSoleWorker: database.kind === 'pglite' }) : undefined;
  const inbound =
    mode === 'start' && config.MAILSVC_INBOUND_ENABLED ? await startLocalInbound(deps) : undefined;

  const limits = await describeRateLimits(deps);
  const consoleOwner =
    mode === 'start' && devPages.inbox && config.MAILSVC_CONSOLE === 'on'
      ? await ensureDemoOwner(deps)
      : undefined;
  io.stdout(
    bannerLines({
      mode,
      config,
      baseUrl,
      database: database.location,
      limits,
      delivery,
      inbound,
      devKey,
      devPages,
      wrapper,
      consoleOwner,
    }).join('\n'),
  );

  await untilStopSignal(io, `mailsvc ${mode}`);
  io.stdout('mailsvc: stopping…');
  // Outside in: the wrapper (which forwards to this API) first, then the API, then delivery.
  if (wrapper && typeof wrapper !== 'string') await wrapper.close();
  await closeApp(app, config.MAILSVC_SHUTDOWN_TIMEOUT_MS);
  if (inbound && typeof inbound !== 'string') await inbound.close();
  await delivery?.stop();
  await runtime.close();
  return 0;
}

export const DEMO_OWNER = 'owner@example.com';

/**
 * On `mailsvc start` with the dev inbox: the demo tenant gets an owner on its first start, so the
 * console can be signed in to at once (the invitation and codes land in the dev inbox).
 */
async function ensureDemoOwner(deps: Deps): Promise<string | undefined> {
  const demo = await ensureDemo(deps);
  const members = await listTenantMembers(deps.db, demo.tenantId);
  if (members.length > 0) return members.find((m) => m.role === 'owner')?.email;
  await inviteMember(
    deps,
    { kind: 'operator', name: 'system:start' },
    { tenantId: demo.tenantId, email: DEMO_OWNER, role: 'owner', name: 'Demo owner' },
  );
  return DEMO_OWNER;
}

/**
 * The template-route wrapper on MAILSVC_WRAPPER_PORT, wired to this API with the dev key. A busy
 * port does not stop `mailsvc start`: the reason is printed instead of the URL.
 */
async function startLocalWrapper(
  config: ReturnType<typeof loadConfig>,
  coreUrl: string,
  apiKey: string,
  deps: Deps,
): Promise<RunningWrapper | string> {
  const {
    AnonymousAccessError,
    FirebaseAdminMissingError,
    localWrapperConfig,
    startWrapperServer,
    WrapperConfigError,
  } = await import('@mailsvc/wrapper');
  let wrapperConfig: ReturnType<typeof localWrapperConfig>;
  try {
    wrapperConfig = localWrapperConfig({
      coreUrl,
      apiKey,
      port: config.MAILSVC_WRAPPER_PORT,
      host: config.HOST,
    });
  } catch (err) {
    // HOST=0.0.0.0 (a container, say) without App Check: the API runs; the banner says why the
    // wrapper did not.
    if (err instanceof AnonymousAccessError) return err.reason;
    if (err instanceof WrapperConfigError) throw new ConfigError(err.problems);
    throw err;
  }
  try {
    return await startWrapperServer({ config: wrapperConfig, log: deps.log.child({ component: 'wrapper' }) });
  } catch (err) {
    if ((err as { code?: string }).code === 'EADDRINUSE')
      return `port ${config.MAILSVC_WRAPPER_PORT} is in use (set MAILSVC_WRAPPER_PORT)`;
    if (err instanceof FirebaseAdminMissingError) return err.message;
    throw err;
  }
}
