// Prometheus metrics (prom-client), served at GET /metrics by the API and by `mailsvc worker`
// (MAILSVC_METRICS_PORT); `mailsvc start` serves both from one registry. Counters and histograms
// are updated where things happen; the queue's depth and the age of its oldest due message are
// read from the database when Prometheus scrapes (one indexed query each), so every process
// reports the same queue. Labels never carry a tenant, an address or a key. docs/operations.md
// lists them with the alerts to set.

import { sql } from 'kysely';
import type pg from 'pg';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from './db/schema.js';

export interface Metrics {
  registry: Registry;
  /** POST /v1/send and the wrapper's sends: result is `accepted`, `replayed` or the error code. */
  accepts: Counter<'category' | 'result'>;
  acceptSeconds: Histogram<'result'>;
  /** Attempt outcomes: sent, deferred, bounced, failed, suppressed, expired. */
  deliveries: Counter<'category' | 'status'>;
  smtpSeconds: Histogram<'result'>;
  /** Messages per claim (worker) and sends per group commit (API). */
  batchSize: Histogram<'kind'>;
  /** Webhook delivery attempts: succeeded, failed, gone (a 410, which disables the endpoint). */
  webhookAttempts: Counter<'outcome'>;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'mailsvc_' });
  return {
    registry,
    accepts: new Counter({
      name: 'mailsvc_accepts_total',
      help: 'Sends answered by the API, by template category and result (accepted, replayed, or the error code).',
      labelNames: ['category', 'result'],
      registers: [registry],
    }),
    acceptSeconds: new Histogram({
      name: 'mailsvc_accept_duration_seconds',
      help: 'Time from a send request to its answer, by result.',
      labelNames: ['result'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    deliveries: new Counter({
      name: 'mailsvc_delivery_outcomes_total',
      help: 'Delivery attempts by outcome (sent, deferred, bounced, failed, suppressed, expired) and category.',
      labelNames: ['category', 'status'],
      registers: [registry],
    }),
    smtpSeconds: new Histogram({
      name: 'mailsvc_smtp_duration_seconds',
      help: 'Time the transport took to hand one message to the relay (or the capture), by result.',
      labelNames: ['result'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    batchSize: new Histogram({
      name: 'mailsvc_batch_size',
      help: 'Items per batch: kind=claim (messages a worker claimed at once), kind=accept (sends in one group commit).',
      labelNames: ['kind'],
      buckets: BATCH_BUCKETS,
      registers: [registry],
    }),
    webhookAttempts: new Counter({
      name: 'mailsvc_webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome: succeeded (2xx), failed (retried, or failed for good after the last), gone (410: the endpoint was disabled).',
      labelNames: ['outcome'],
      registers: [registry],
    }),
  };
}

/**
 * The gauges read at scrape time: queue depth by status and priority, the age of the oldest
 * message due, and the database pool. Registered once per process that has a database.
 */
export function registerDatabaseGauges(metrics: Metrics, db: Db, pool: pg.Pool, now: () => Date): void {
  const { registry } = metrics;
  // First: prom-client starts every collect at once, and read after the queue gauges' queries were
  // issued, the pool would count the scrape's own queries as waiting (2 on an idle embedded database).
  new Gauge({
    name: 'mailsvc_db_pool_connections',
    help: 'Database pool: total and idle connections, and requests waiting for one.',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      this.set({ state: 'total' }, pool.totalCount);
      this.set({ state: 'idle' }, pool.idleCount);
      this.set({ state: 'waiting' }, pool.waitingCount);
    },
  });
  new Gauge({
    name: 'mailsvc_queue_messages',
    help: 'Messages waiting or in flight, by status (scheduled = not yet due, queued, deferred, sending = claimed by a worker) and priority (lower first).',
    labelNames: ['status', 'priority'],
    registers: [registry],
    async collect() {
      this.reset();
      const { rows } = await sql<{ status: string; priority: number; n: string }>`
        SELECT status, priority, count(*) AS n FROM messages
        WHERE status IN ('scheduled', 'queued', 'deferred', 'sending')
        GROUP BY status, priority`.execute(db);
      for (const r of rows) this.set({ status: r.status, priority: String(r.priority) }, Number(r.n));
    },
  });
  new Gauge({
    name: 'mailsvc_queue_oldest_due_age_seconds',
    help: 'Age of the oldest scheduled, queued or deferred message that is due (0 when none): the alert for a stalled or overloaded worker.',
    registers: [registry],
    async collect() {
      const at = now();
      const { rows } = await sql<{ due: Date | null }>`
        SELECT min(next_attempt_at) AS due FROM messages
        WHERE status IN ('scheduled', 'queued', 'deferred') AND next_attempt_at <= ${at}`.execute(db);
      const due = rows[0]?.due;
      this.set(due ? Math.max(0, (at.getTime() - new Date(due).getTime()) / 1000) : 0);
    },
  });
  registerWebhookGauges(registry, db, now);
}

/** The webhook queue's gauges: deliveries waiting, the oldest due one's age, disabled endpoints. */
function registerWebhookGauges(registry: Registry, db: Db, now: () => Date): void {
  new Gauge({
    name: 'mailsvc_webhook_deliveries',
    help: "Webhook deliveries waiting or in flight, by status (pending, sending) and whether their endpoint is enabled (a disabled endpoint's wait until it is enabled again).",
    labelNames: ['status', 'endpoint'],
    registers: [registry],
    async collect() {
      this.reset();
      const { rows } = await sql<{ status: string; enabled: boolean; n: string }>`
        SELECT d.status, w.enabled, count(*) AS n FROM webhook_deliveries d
          JOIN webhook_endpoints w ON w.id = d.endpoint_id
         WHERE d.status IN ('pending', 'sending') GROUP BY d.status, w.enabled`.execute(db);
      for (const r of rows)
        this.set({ status: r.status, endpoint: r.enabled ? 'enabled' : 'disabled' }, Number(r.n));
    },
  });
  new Gauge({
    name: 'mailsvc_webhook_oldest_due_age_seconds',
    help: 'Age of the oldest due webhook delivery of an enabled endpoint, or of the oldest message event not yet made a webhook event by the runner (0 when none): the alert for a stalled webhook runner.',
    registers: [registry],
    async collect() {
      const at = now();
      // each enabled endpoint's oldest due delivery, from its own index range, and the oldest
      // message event waiting for the fan-out (webhook_outbox.sql)
      const { rows } = await sql<{ due: Date | null }>`
        SELECT LEAST(
          (SELECT min(f.due) FROM webhook_endpoints w
            CROSS JOIN LATERAL (
              SELECT d.next_attempt_at AS due FROM webhook_deliveries d
               WHERE d.endpoint_id = w.id AND d.status = 'pending' AND d.next_attempt_at <= ${at}
               ORDER BY d.next_attempt_at LIMIT 1) f
            WHERE w.enabled),
          (SELECT n.created_at FROM webhook_fanout o JOIN message_events n ON n.id = o.message_event_id
            ORDER BY o.message_event_id LIMIT 1)) AS due`.execute(db);
      const due = rows[0]?.due;
      this.set(due ? Math.max(0, (at.getTime() - new Date(due).getTime()) / 1000) : 0);
    },
  });
  new Gauge({
    name: 'mailsvc_webhook_endpoints_disabled',
    help: 'Webhook endpoints disabled, by reason (manual, gone, failing).',
    labelNames: ['reason'],
    registers: [registry],
    async collect() {
      this.reset();
      const { rows } = await sql<{ reason: string; n: string }>`
        SELECT disabled_reason AS reason, count(*) AS n FROM webhook_endpoints
         WHERE NOT enabled GROUP BY disabled_reason`.execute(db);
      for (const r of rows) this.set({ reason: r.reason }, Number(r.n));
    },
  });
}
