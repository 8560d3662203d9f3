// Webhooks under faults (issue 27): under a steady load of sends, the receiver is down for a while,
// then answers 500, then recovers, while the API, a worker and PostgreSQL are each killed or
// stopped once. Every event of every accepted message must reach the receiver at least once, in
// order per message, signed, with the same webhook-id (and body) on duplicates. Duplicates are
// allowed (delivery is at-least-once: an attempt whose answer or record a fault swallowed is made
// again), counted and reported.
//
// PostgreSQL only: `npm run test:faults` (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres;
// the scenario stops and starts that server with pg_ctlcluster).
import fs from 'node:fs';
import { freePort } from '@mailsvc/testkit/free-port';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Cluster, LEASE_MS, sleep, startCluster, until } from './cluster.js';
import { SendLoad } from './load.js';
import { type Arrival, createSwitchableReceiver, type SwitchableReceiver } from './webhook-receiver.js';

const SCENARIO = 'webhooks';
const SENDS_PER_SECOND = 80;
const CLIENT_CONCURRENCY = 24;
const LOAD_MS = 27_000;
/** A send still not accepted this long after the load stopped gives up (and fails the test). */
const GIVE_UP_AFTER_MS = 30_000;
const FINAL_STATUS_WITHIN_MS = 45_000;
const WEBHOOKS_SETTLED_WITHIN_MS = 60_000;
const FINAL = ['sent', 'bounced', 'failed', 'suppressed', 'expired'];
/**
 * The webhook runner finds retries that fell due by polling (default 500 ms): a shorter poll
 * shortens the test's waits, not what is delivered.
 */
const WEBHOOK_POLL_MS = 100;
/** The receiver's time before it answers: keeps deliveries in flight when the worker is killed. */
const RECEIVER_LATENCY_MS = 10;

interface EventRow {
  id: string;
  message_id: string;
  type: string;
  webhook_type: string;
  created_at: Date;
}

/**
 * The local ports of a process's TCP connections to 127.0.0.1:`port` (its sockets' inodes in
 * /proc/<pid>/fd, found in /proc/net/tcp). Read synchronously, so the receiver can tell in the
 * turn it answers whether the request came from the worker to kill.
 */
function portsOfConnections(pid: number, port: number): Set<number> {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {} // closed meanwhile
  }
  const ports = new Set<number>();
  for (const line of fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || !inodes.has(f[9]!)) continue;
    if (Number.parseInt(f[2]!.split(':')[1]!, 16) === port)
      ports.add(Number.parseInt(f[1]!.split(':')[1]!, 16));
  }
  return ports;
}

const s = (ms: number | undefined) => (ms === undefined ? 'never' : `${(ms / 1000).toFixed(1)} s`);

describe('webhooks under faults (PostgreSQL)', () => {
  let cluster: Cluster;
  let receiver: SwitchableReceiver;
  let receiverPort: number;
  let hasFailed = false;

  beforeAll(async () => {
    receiverPort = await freePort();
    receiver = createSwitchableReceiver({ port: receiverPort, latencyMs: RECEIVER_LATENCY_MS });
    cluster = await startCluster({
      env: { MAILSVC_WEBHOOK_ALLOW_PRIVATE: 'true', MAILSVC_WEBHOOK_POLL_MS: String(WEBHOOK_POLL_MS) },
    });
  }, 120_000);

  beforeEach(({ onTestFailed }) => {
    onTestFailed(() => {
      hasFailed = true;
    });
  });

  afterAll(async () => {
    await receiver?.close();
    if (!cluster) return;
    if (hasFailed) console.log(`process logs kept in ${cluster.logDir}`);
    await cluster.close({ keepLogs: hasFailed });
  }, 60_000);

  async function call(path: string, body: unknown): Promise<Record<string, unknown>> {
    const res = await fetch(`http://127.0.0.1:${cluster.apiPort}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${cluster.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    expect(res.status, `${path}: ${JSON.stringify(json)}`).toBe(200);
    return json;
  }

  const count = async (sql: string, params: unknown[] = []) =>
    (await cluster.db.query<{ n: number }>(sql, params)).rows[0]!.n;

  it('delivers every event of every accepted message at least once, in order per message, with the same webhook-id on duplicates, through a receiver outage, 500s and the loss of the API, a worker and PostgreSQL', async () => {
    const created = await call('/v1/webhooks/create', { url: receiver.url, description: 'fault suite' });
    const endpointId = (created.endpoint as { endpointId: string }).endpointId;
    receiver.secret = created.secret as string;

    const load = new SendLoad({
      port: cluster.apiPort,
      apiKey: cluster.apiKey,
      scenario: SCENARIO,
      ratePerSecond: SENDS_PER_SECOND,
      concurrency: CLIENT_CONCURRENCY,
    });
    const t0 = Date.now();
    const at = (ms: number) => sleep(Math.max(0, t0 + ms - Date.now()));
    const timeline: string[] = [];
    const mark = (what: string) => timeline.push(`${what} ${s(Date.now() - t0)}`);
    const killed: { name: string; isAlive: () => boolean }[] = [];
    /** The request answered 204 whose sender was killed before it could record it. */
    let unrecorded: Arrival | undefined;

    // The receiver is down (connection refused) from the start: the first events fail at once.
    load.start();
    try {
      await at(2000);
      const api = cluster.api;
      await cluster.kill9(api);
      killed.push({ name: api.name, isAlive: api.isAlive });
      mark('API killed');
      await sleep(500);
      await cluster.startApi();
      mark('API ready');

      await at(5000);
      await receiver.setMode('refuse-500');
      mark('receiver answers 500');
      // Deferrals while the receiver refuses: messages with several events, the later waiting.
      await at(6000);
      cluster.relay.mode = 'rcpt-451';
      await at(8000);
      cluster.relay.mode = 'accept';

      await at(10_000);
      await receiver.setMode('accept');
      mark('receiver answers 204');
      // While the backlog of the outage drains. Killed in the same turn of the event loop as the
      // receiver writes a 204 to it: the receiver has that event, the worker never records it.
      await at(11_000);
      const worker = cluster.workers[0]!;
      let ports = new Set<number>();
      receiver.onAnswered = (a) => {
        if (unrecorded !== undefined || !ports.has(a.remotePort)) return;
        worker.child.kill('SIGKILL');
        unrecorded = a;
      };
      try {
        await until(
          `${worker.name} to be answered 204`,
          () => {
            ports = portsOfConnections(worker.pid, receiverPort);
            return unrecorded !== undefined;
          },
          10_000,
          5,
        );
      } finally {
        receiver.onAnswered = undefined;
      }
      await cluster.kill9(worker);
      killed.push({ name: worker.name, isAlive: worker.isAlive });
      mark(`${worker.name} killed`);
      await cluster.startWorker();
      mark('replacement worker running');

      await at(14_000);
      try {
        mark('PostgreSQL stopped');
        await cluster.postgres.stop();
        await sleep(4000);
      } finally {
        await cluster.postgres.start();
        mark('PostgreSQL ready');
      }

      // Deferrals again, with the receiver up.
      await sleep(1000);
      cluster.relay.mode = 'rcpt-451';
      await sleep(2000);
      cluster.relay.mode = 'accept';
      await at(LOAD_MS);
    } finally {
      cluster.relay.mode = 'accept';
      await cluster.postgres.ensureStarted();
      await load.finish(GIVE_UP_AFTER_MS);
      load.close();
    }
    mark('load stopped');

    const like = `f-${SCENARIO}-%`;
    await until(
      'every accepted message to reach a final status',
      async () =>
        (await count(
          'SELECT count(*)::int AS n FROM messages WHERE to_email LIKE $1 AND NOT (status = ANY($2))',
          [like, FINAL],
        )) === 0,
      FINAL_STATUS_WITHIN_MS,
      250,
    ).catch(() => {}); // the checks below say which events were not delivered
    mark('messages final');

    // A delivery that failed twice waits 5 minutes for its third attempt (then 30 min…). Making the
    // pending ones due now shortens the retry waits, not what is delivered: the claim still keeps
    // one message's events in order. One that failed for good (ten attempts) is replayed.
    let madeDue = 0;
    const settle = () =>
      until(
        'every webhook delivery to succeed or fail for good',
        async () => {
          const moved = await cluster.db.query(
            "UPDATE webhook_deliveries SET next_attempt_at = now() WHERE status = 'pending' AND next_attempt_at > now()",
          );
          madeDue += moved.rowCount ?? 0;
          return (
            (await count(
              "SELECT count(*)::int AS n FROM webhook_deliveries WHERE status IN ('pending', 'sending')",
            )) === 0
          );
        },
        WEBHOOKS_SETTLED_WITHIN_MS,
        250,
      ).catch(() => {}); // the checks below say which events were not delivered
    await settle();
    const failedForGood = await count(
      "SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'failed'",
    );
    if (failedForGood > 0) {
      await call('/v1/webhooks/deliveries/replay', { endpointId });
      await settle();
    }
    mark('webhooks settled');

    const accepted = new Set(load.sends.flatMap((x) => [...x.messageIds]));
    const events = (
      await cluster.db.query<EventRow>(
        `SELECT e.id, e.message_id, e.type, webhook_event_type(e.type) AS webhook_type, e.created_at
           FROM message_events e JOIN messages m ON m.id = e.message_id
          WHERE m.to_email LIKE $1 AND webhook_event_type(e.type) IS NOT NULL
          ORDER BY e.message_id, e.created_at, e.id`,
        [like],
      )
    ).rows.filter((e) => accepted.has(e.message_id));
    const known = new Set(
      (
        await cluster.db.query<{ id: string }>(
          'SELECT id FROM webhook_events UNION SELECT id FROM message_events',
        )
      ).rows.map((r) => r.id),
    );
    const deliveries = (
      await cluster.db.query<{ max: number; open: number; failed: number }>(
        `SELECT max(attempts)::int AS max,
                count(*) FILTER (WHERE status IN ('pending', 'sending'))::int AS open,
                count(*) FILTER (WHERE status = 'failed')::int AS failed
           FROM webhook_deliveries`,
      )
    ).rows[0]!;
    const failedAttempts = (
      await cluster.db.query<{ why: string; n: number }>(
        `SELECT COALESCE(status_code::text, trim(split_part(error, ':', 2))) AS why, count(*)::int AS n
           FROM webhook_attempts WHERE outcome = 'failed' GROUP BY 1 ORDER BY 2 DESC`,
      )
    ).rows;

    const arrivals = receiver.arrivals;
    const byId = new Map<string, Arrival[]>();
    for (const a of arrivals) byId.set(a.id, [...(byId.get(a.id) ?? []), a]);
    const answersTo = (id: string) =>
      byId
        .get(id)
        ?.map((a) => a.answer)
        .join(', ') ?? 'never received';
    const delivered = (id: string) => (byId.get(id) ?? []).filter((a) => a.answer === 204);
    const duplicates = [...byId.values()].reduce(
      (n, as) => n + Math.max(0, as.filter((a) => a.answer === 204).length - 1),
      0,
    );
    const eventsByMessage = new Map<string, EventRow[]>();
    for (const e of events)
      eventsByMessage.set(e.message_id, [...(eventsByMessage.get(e.message_id) ?? []), e]);
    const types: Record<string, number> = {};
    for (const e of events) types[e.webhook_type] = (types[e.webhook_type] ?? 0) + 1;
    const orderedPairs = [...eventsByMessage.values()].reduce((n, es) => n + es.length - 1, 0);
    const answers = { 204: 0, 500: 0, dropped: 0 };
    for (const a of arrivals) answers[a.answer]++;

    const list = (entries: [string, number][]) => entries.map(([k, n]) => `${k} ×${n}`).join(', ') || 'none';
    const duplicatedEvents = [...byId.values()].filter((as) => as.filter((a) => a.answer === 204).length > 1);
    console.log(
      [
        '',
        `webhooks under faults: ${load.sends.length} sends at ${SENDS_PER_SECOND}/s; ${events.length} events of ${eventsByMessage.size} messages (${list(Object.entries(types))}; ${orderedPairs} pairs of one message's events to keep in order)`,
        `received ${arrivals.length} requests (${answers[204]} answered 204, ${answers[500]} 500, ${answers.dropped} dropped); duplicates ${duplicates} (of ${duplicatedEvents.length} events); max attempts ${deliveries.max}; retry waits shortened for ${madeDue}; failed for good ${failedForGood}; failed attempts recorded: ${list(failedAttempts.map((r) => [r.why, r.n]))}`,
        `timeline: ${timeline.join(', ')}; lease ${LEASE_MS} ms, webhook poll ${WEBHOOK_POLL_MS} ms`,
        '',
      ].join('\n'),
    );

    // Every send was accepted in the end, with one messageId.
    expect(
      load.sends
        .filter((x) => x.outcome !== 'accepted' || x.messageIds.size !== 1)
        .map((x) => `${x.key}: ${x.outcome}, ${[...x.messageIds].join(', ')} (${x.lastError})`),
      'sends not accepted with exactly one messageId',
    ).toEqual([]);
    // Every accepted message ended, with at least its final event to report.
    expect(
      [...accepted].filter((id) => !eventsByMessage.has(id)),
      'accepted messages without a webhook event',
    ).toEqual([]);

    // At least once: every event of every accepted message was taken by the receiver (a 204).
    expect(
      events
        .filter((e) => delivered(e.id).length === 0)
        .map((e) => `${e.id} (${e.webhook_type} of ${e.message_id}): ${answersTo(e.id)}`),
      'events never delivered',
    ).toEqual([]);
    expect(deliveries.open, 'deliveries still pending or sending').toBe(0);
    // The event the killed worker had been answered 204 for: either it came again (the worker died
    // before recording it), or the worker recorded it in the microseconds before SIGKILL landed (the
    // record is one autocommit statement) — then its succeeded attempt is in the log. Never lost.
    expect(unrecorded, 'a request answered 204 as its worker was killed').toBeDefined();
    const recordedByTheKilled = await cluster.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM webhook_attempts WHERE event_id = $1 AND outcome = 'succeeded'",
      [unrecorded!.id],
    );
    const arrivalsOfIt = delivered(unrecorded!.id).length;
    console.log(
      `the event answered 204 as its worker was killed: ${arrivalsOfIt} arrival(s), ${recordedByTheKilled.rows[0]!.n} succeeded attempt(s) recorded`,
    );
    expect(
      arrivalsOfIt >= 2 || recordedByTheKilled.rows[0]!.n >= 1,
      `${unrecorded!.id}, answered 204 as its worker was killed: delivered again, or its success recorded`,
    ).toBe(true);

    // Signed: every request verifies with the endpoint's secret, on the real clock.
    expect(
      arrivals.filter((a) => a.event === undefined).map((a) => `#${a.seq} ${a.id}: ${a.verifyError}`),
      'requests that do not verify',
    ).toEqual([]);
    // Nothing that did not happen: every webhook-id names a stored event, and says what it says.
    expect(
      arrivals.filter((a) => !known.has(a.id)).map((a) => `#${a.seq} ${a.id}`),
      'requests naming an unknown event',
    ).toEqual([]);
    const eventById = new Map(events.map((e) => [e.id, e]));
    expect(
      arrivals
        .filter((a) => {
          const e = eventById.get(a.id);
          return e && (a.event?.type !== e.webhook_type || a.event?.data.messageId !== e.message_id);
        })
        .map((a) => `#${a.seq} ${a.id}: ${a.event?.type} of ${a.event?.data.messageId}`),
      'requests whose payload is not their event',
    ).toEqual([]);
    // A duplicate is the same request again: same webhook-id, same body.
    expect(
      arrivals
        .filter((a) => a.body !== byId.get(a.id)![0]!.body)
        .map((a) => `#${a.seq} ${a.id}: ${a.body} ≠ ${byId.get(a.id)![0]!.body}`),
      'requests whose body differs from the first with their webhook-id',
    ).toEqual([]);

    // In order per message: the first arrival of each event follows the first arrival of the one
    // before it; and, stronger (docs/webhooks.md, Order), a later event is not even tried until the
    // earlier one was taken.
    const outOfOrder: string[] = [];
    for (const [messageId, es] of eventsByMessage) {
      for (let i = 1; i < es.length; i++) {
        const prev = es[i - 1]!;
        const next = es[i]!;
        const prevFirst = byId.get(prev.id)?.[0]?.seq;
        const prevTaken = delivered(prev.id)[0]?.seq;
        const nextFirst = byId.get(next.id)?.[0]?.seq;
        if (prevFirst === undefined || prevTaken === undefined || nextFirst === undefined) continue; // counted above
        if (nextFirst < prevFirst || nextFirst < prevTaken)
          outOfOrder.push(
            `${messageId}: ${next.webhook_type} ${next.id} (${next.created_at.toISOString()}) first arrived #${nextFirst}, before ${prev.webhook_type} ${prev.id} (${prev.created_at.toISOString()}) first arrived #${prevFirst}, first taken #${prevTaken}`,
          );
      }
    }
    expect(outOfOrder, 'events of one message out of order').toEqual([]);

    // The faults happened: refused connections and 500s were recorded as failed attempts, and some
    // messages had a delivery_delayed before their sent.
    expect(answers[500], 'requests answered 500').toBeGreaterThan(0);
    expect(
      failedAttempts.filter((r) => r.why === 'ECONNREFUSED').reduce((n, r) => n + r.n, 0),
      'attempts refused while the receiver was down',
    ).toBeGreaterThan(0);
    expect(types['message.delivery_delayed'] ?? 0, 'message.delivery_delayed events').toBeGreaterThan(0);
    // No process died on its own, and the killed ones are gone.
    expect(cluster.unexpectedExits(), 'processes that exited unexpectedly').toEqual([]);
    expect(
      killed.filter((k) => k.isAlive()).map((k) => k.name),
      'killed processes still alive',
    ).toEqual([]);
  }, 170_000);
});
