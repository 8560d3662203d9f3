import { type Config, loadConfig } from '../config.js';
import { releaseAllLeases } from '../db/repositories/queue.js';
import { releaseDomainCheckLeases } from '../db/repositories/sending-domains.js';
import { releaseAllDeliveryLeases } from '../db/repositories/webhook-queue.js';
import { createTransport } from '../delivery/create-transport.js';
import { RetentionSweeper } from '../delivery/retention.js';
import { inboxDir } from '../delivery/transports/capture.js';
import { DeliveryWorker } from '../delivery/worker.js';
import type { Deps } from '../domain/deps.js';
import { DomainCheckWorker } from '../domains/domain-check-worker.js';
import { openRuntime } from '../runtime.js';
import { StartupError } from '../startup-error.js';
import { WebhookWorker } from '../webhooks/webhook-worker.js';
import type { Io } from './main.js';
import { untilStopSignal } from './stop-signal.js';

export interface RunningDelivery {
  /** One line for the start-up banner: where messages go. */
  description: string;
  stop(): Promise<void>;
}

/**
 * Refuses settings that would put wrong links into real mail: over SMTP, the List-Unsubscribe
 * header and the footer link point at MAILSVC_PUBLIC_URL, so it must be the service's public
 * https address (the default, http://HOST:PORT, is only right for the capture inbox).
 */
export function checkDeliverySettings(config: Config): void {
  if (!config.MAILSVC_SMTP_URL) return;
  if (new URL(config.MAILSVC_PUBLIC_URL).protocol !== 'https:') {
    throw new StartupError(
      `delivering over SMTP needs MAILSVC_PUBLIC_URL, the public https address of the API (unsubscribe links in real mail point there); it is ${config.MAILSVC_PUBLIC_URL}`,
    );
  }
}

/**
 * Starts a delivery worker on these deps with the configured transport. `isSoleWorker`: the
 * embedded database, whose lock makes this process the only worker; leases left by a process
 * that died are released first, so its messages go out now rather than when their lease runs out.
 */
export async function startDelivery(deps: Deps, opts: { isSoleWorker: boolean }): Promise<RunningDelivery> {
  const { config } = deps;
  if (opts.isSoleWorker) {
    const released =
      (await releaseAllLeases(deps.db, deps.clock.now())) +
      (await releaseAllDeliveryLeases(deps.db, deps.clock.now())) +
      (await releaseDomainCheckLeases(deps.db));
    if (released > 0)
      deps.log.warn(
        { released },
        'took over messages and webhook deliveries claimed by a process that stopped unexpectedly',
      );
  }
  const transport = createTransport(config);
  const worker = new DeliveryWorker(deps, transport, {
    concurrency: config.MAILSVC_WORKER_CONCURRENCY,
    leaseMs: config.MAILSVC_WORKER_LEASE_MS,
    pollMs: config.MAILSVC_WORKER_POLL_MS,
  });
  worker.start();
  const webhooks = new WebhookWorker(deps, {
    concurrency: config.MAILSVC_WEBHOOK_CONCURRENCY,
    perEndpoint: config.MAILSVC_WEBHOOK_PER_ENDPOINT,
    leaseMs: config.MAILSVC_WORKER_LEASE_MS,
    pollMs: config.MAILSVC_WEBHOOK_POLL_MS,
    timeoutMs: config.MAILSVC_WEBHOOK_TIMEOUT_MS,
    allowPrivate: config.MAILSVC_WEBHOOK_ALLOW_PRIVATE,
    isMailBacklogged: () => worker.backlogged,
  });
  webhooks.start();
  const domains = new DomainCheckWorker(deps, {
    concurrency: config.MAILSVC_DOMAIN_CHECK_CONCURRENCY,
    leaseMs: config.MAILSVC_WORKER_LEASE_MS,
    pollMs: 1000,
    isMailBusy: () => worker.busy,
  });
  domains.start();
  const retention = new RetentionSweeper(deps);
  retention.start();
  let description: string;
  if (config.MAILSVC_SMTP_URL) {
    const url = new URL(config.MAILSVC_SMTP_URL);
    description = `SMTP relay ${url.protocol}//${url.host}`;
    if (config.MAILSVC_BOUNCE_DOMAIN === config.MAILSVC_DEFAULT_SENDING_DOMAIN) {
      // The default sending domain's MX is usually the operator's own mail provider: bounces and
      // complaints would land there, not at `mailsvc inbound` (docs/feedback.md).
      deps.log.warn(
        { bounceDomain: config.MAILSVC_BOUNCE_DOMAIN },
        'MAILSVC_BOUNCE_DOMAIN is the default sending domain: give bounces a domain whose MX points at mailsvc inbound',
      );
    }
  } else {
    description = `captured to ${inboxDir(config.dataDir)} (no MAILSVC_SMTP_URL)`;
    deps.log.warn('no MAILSVC_SMTP_URL: messages are captured to the data directory, not delivered');
  }
  return {
    description,
    async stop() {
      await Promise.all([worker.stop(), webhooks.stop(), domains.stop()]);
      await retention.stop();
      await transport.close();
    },
  };
}

/**
 * `mailsvc worker`'s own GET /metrics and /healthz (MAILSVC_METRICS_PORT): the worker serves no
 * API, so Prometheus scrapes it here, with the same access rule as the API's /metrics.
 */
async function startMetricsServer(deps: Deps, host: string, port: number) {
  const { default: Fastify } = await import('fastify');
  const { metricsRoutes } = await import('../api/routes/metrics.js');
  const app = Fastify({ logger: false });
  app.get('/healthz', async () => ({ ok: true }));
  metricsRoutes(app, deps.config, deps.metrics);
  const address = await app.listen({ host, port });
  return { url: address, close: () => app.close() };
}

/** `mailsvc worker`: delivery only. Run as many as you like on one PostgreSQL. */
export async function runWorker(_args: string[], io: Io): Promise<number> {
  const config = loadConfig();
  if (!config.DATABASE_URL) {
    // The embedded database admits one process: a separate worker would hold its lock, and
    // nothing could accept messages for it.
    throw new StartupError(
      'needs DATABASE_URL (PostgreSQL). On the embedded database run `mailsvc start`, which runs the API and the delivery worker in one process.',
    );
  }
  checkDeliverySettings(config);
  const runtime = await openRuntime(config, { command: 'worker' });
  // Always PostgreSQL here (refused above otherwise): other workers may hold live leases.
  const delivery = await startDelivery(runtime.deps, { isSoleWorker: false });
  const metricsServer = config.MAILSVC_METRICS_PORT
    ? await startMetricsServer(runtime.deps, config.HOST, config.MAILSVC_METRICS_PORT)
    : undefined;
  io.stdout(
    [
      '',
      'mailsvc worker is running',
      `  Database   ${runtime.database.location}`,
      `  Delivery   ${delivery.description}`,
      `  Slots      ${config.MAILSVC_WORKER_CONCURRENCY} messages at a time, lease ${config.MAILSVC_WORKER_LEASE_MS} ms`,
      ...(metricsServer ? [`  Metrics    ${metricsServer.url}/metrics`] : []),
      '',
    ].join('\n'),
  );
  await untilStopSignal(io, 'mailsvc worker');
  io.stdout('mailsvc worker: finishing the messages in flight…');
  await delivery.stop();
  await metricsServer?.close();
  await runtime.close();
  return 0;
}
