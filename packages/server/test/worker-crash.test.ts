// kill -9 of a worker in the middle of a batch, on PostgreSQL: every accepted message still
// reaches a final status, and the sink sees duplicates only from the batch that was in flight.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  backend,
  bearer,
  createHarness,
  type Harness,
  type Scope,
  seedScope,
} from '@mailsvc/testkit/harness';
import { type SmtpSink, startSmtpSink } from '@mailsvc/testkit/smtp-sink';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'mailsvc.js');
const CONCURRENCY = 8;
const MESSAGES = 120;

describe.skipIf(backend !== 'postgres')('a worker killed with SIGKILL (PostgreSQL)', () => {
  let h: Harness;
  let s: Scope;
  let sink: SmtpSink;
  let dataDir: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    h = await createHarness();
    h.clock.set(new Date());
    s = await seedScope(h, { monthlyLimit: 10_000 });
    sink = await startSmtpSink({ slowMs: 40 });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailsvc-crash-'));
  });
  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await sink.close();
    await h.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  function startWorker(): ChildProcess {
    const child = spawn(process.execPath, [BIN, 'worker'], {
      env: {
        ...process.env,
        DATABASE_URL: h.runtime.config.DATABASE_URL,
        MAILSVC_SMTP_URL: sink.url,
        MAILSVC_PUBLIC_URL: 'https://mail.example.test',
        MAILSVC_SMTP_POOL_SIZE: '4',
        MAILSVC_WORKER_CONCURRENCY: String(CONCURRENCY),
        MAILSVC_WORKER_LEASE_MS: '2000',
        MAILSVC_WORKER_POLL_MS: '200',
        MAILSVC_DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    });
    children.push(child);
    return child;
  }

  const until = async (what: string, check: () => Promise<boolean> | boolean, ms: number) => {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('loses nothing and duplicates at most the batch in flight', async () => {
    const ids: string[] = [];
    for (let i = 0; i < MESSAGES; i++) {
      const res = await h.request({
        method: 'POST',
        url: '/v1/send',
        headers: { ...bearer(s.apiKey), 'content-type': 'application/json' },
        payload: JSON.stringify({ templateId: 'welcome', to: `crash-${i}@example.com`, data: {} }),
      });
      expect(res.statusCode).toBe(200);
      ids.push(res.json().messageId);
    }

    const first = startWorker();
    await until('the first worker to deliver some messages', () => sink.received.length >= 20, 30_000);
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const deliveredBeforeKill = sink.received.length;
    expect(deliveredBeforeKill).toBeLessThan(MESSAGES);

    startWorker();
    const finalCount = async () =>
      Number(
        (
          await h.runtime.deps.db
            .selectFrom('messages')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('id', 'in', ids)
            .where('status', 'in', ['sent', 'bounced', 'failed', 'suppressed', 'expired'])
            .executeTakeFirstOrThrow()
        ).n,
      );
    await until(
      'every message to reach a final status',
      async () => (await finalCount()) === MESSAGES,
      60_000,
    );

    const statuses = await h.runtime.deps.db
      .selectFrom('messages')
      .select(['status'])
      .where('id', 'in', ids)
      .execute();
    expect(statuses.every((r) => r.status === 'sent')).toBe(true);
    const seen = sink.received.map((r) => String(r.parsed.headers.get('x-mailsvc-message-id')));
    const unique = new Set(seen);
    for (const id of ids) expect(unique.has(id), id).toBe(true);
    expect(seen.length - unique.size).toBeLessThanOrEqual(CONCURRENCY);
  }, 120_000);
});
