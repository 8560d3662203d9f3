// What the feedback tests over SMTP share: the harness's deps delivering to a sink (testkit's
// startSinkWorker), `mailsvc inbound` on a free port, and a nodemailer client mailing to it as a
// relay returning bounces would. `close()` stops them in that order, reversed.
import type { Harness } from '@mailsvc/testkit/harness';
import { startSinkWorker } from '@mailsvc/testkit/smtp-sink';
import nodemailer from 'nodemailer';
import { startInbound } from '../src/inbound/server.js';

/** `maxConnections`: a pool of that many connections (inbound limits connected clients), else one per message. */
export async function startInboundRig(h: Harness, opts: { maxConnections?: number } = {}) {
  const rig = await startSinkWorker(h.runtime.deps);
  const inbound = await startInbound(h.runtime.deps, { port: 0, host: '127.0.0.1' });
  const mailer = nodemailer.createTransport({
    ...(opts.maxConnections && { pool: true, maxConnections: opts.maxConnections }),
    host: '127.0.0.1',
    port: inbound.port,
    secure: false,
    ignoreTLS: true,
  });
  return {
    ...rig,
    inbound,
    mailer,
    async close() {
      mailer.close();
      await inbound.close();
      await rig.close();
    },
  };
}
