// `mailsvc inbound`: the SMTP server of the bounce domains (smtp-server). It takes DSNs, delivery
// notices, ARF complaints and whatever else arrives, reads each (parse-report.ts) and applies it
// (domain/feedback). Mail to a VERP address whose tag does not verify is refused at RCPT: a
// guessed or forged address names no message. Input is capped at 1 MiB. A report that cannot be
// recorded because the database is away is answered 451, so the sending MTA tries again later.
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { isDatabaseUnavailable } from '../db/errors.js';
import type { Deps } from '../domain/deps.js';
import { applyFeedbackReport, type ReportOutcome } from '../domain/feedback/apply-report.js';
import type { FeedbackReport } from '../domain/feedback/types.js';
import { messageIdFromVerp } from '../domain/feedback/verp.js';
import { MimeLimitError } from './mime.js';
import { parseReport } from './parse-report.js';

/** Largest message read; a report is a few KB, and the original inside it is capped by its MTA. */
export const INBOUND_MAX_BYTES = 1024 * 1024;
const MAX_RECIPIENTS = 20;

class SmtpReply extends Error {
  constructor(
    public responseCode: number,
    message: string,
  ) {
    super(message);
  }
}

export interface RunningInbound {
  port: number;
  /** Each message's outcome, for tests and logs. */
  onReport?: (r: { report: FeedbackReport; outcomes: ReportOutcome[] }) => void;
  close(): Promise<void>;
}

async function readCapped(stream: SMTPServerDataStream): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= INBOUND_MAX_BYTES) chunks.push(chunk);
  }
  return stream.sizeExceeded || size > INBOUND_MAX_BYTES ? null : Buffer.concat(chunks);
}

/** The message a signed VERP recipient names (the first one of the envelope that does). */
function verpMessageId(deps: Pick<Deps, 'keys'>, session: SMTPServerSession): string | undefined {
  for (const rcpt of session.envelope.rcptTo) {
    const id = messageIdFromVerp(deps.keys.verp, rcpt.address);
    if (id) return id;
  }
  return undefined;
}

export async function startInbound(
  deps: Pick<Deps, 'db' | 'clock' | 'log' | 'keys' | 'config'>,
  opts: { port: number; host: string },
): Promise<RunningInbound> {
  const log = deps.log.child({ component: 'inbound' });
  const running: RunningInbound = { port: 0, close: async () => {} };
  const server = new SMTPServer({
    name: deps.config.MAILSVC_BOUNCE_DOMAIN,
    banner: 'mailsvc inbound: bounces and feedback only',
    size: INBOUND_MAX_BYTES,
    authOptional: true,
    disabledCommands: ['AUTH'],
    maxClients: 100,
    socketTimeout: 60_000,
    closeTimeout: 5_000,
    logger: false,
    onRcptTo(address, session, callback) {
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) {
        return callback(new SmtpReply(452, '4.5.3 Too many recipients'));
      }
      // Anything addressed like a VERP bounce address must carry a tag we minted.
      if (/^bounces\+/i.test(address.address) && !messageIdFromVerp(deps.keys.verp, address.address)) {
        return callback(new SmtpReply(550, '5.1.1 No such bounce address'));
      }
      callback();
    },
    onData(stream, session, callback) {
      void (async () => {
        const raw = await readCapped(stream);
        if (!raw) throw new SmtpReply(552, '5.3.4 Message too big for a report (1 MiB)');
        let report: FeedbackReport;
        try {
          report = parseReport(raw);
        } catch (err) {
          if (err instanceof MimeLimitError) throw new SmtpReply(554, '5.6.0 Message structure too complex');
          throw err;
        }
        const verp = verpMessageId(deps, session);
        if (verp) report.ref = { ...report.ref, verpMessageId: verp };
        const outcomes =
          report.items.length > 0 ? await applyFeedbackReport(deps, report, { source: 'inbound', raw }) : [];
        log.info(
          { type: report.type, feedbackType: report.feedbackType, outcomes: outcomes.map((o) => o.result) },
          'inbound mail',
        );
        running.onReport?.({ report, outcomes });
      })().then(
        () => callback(),
        (err: unknown) => {
          if (err instanceof SmtpReply) return callback(err);
          if (isDatabaseUnavailable(err)) {
            log.warn('database unavailable: report deferred (451)');
            return callback(new SmtpReply(451, '4.3.0 Try again later'));
          }
          log.error({ err }, 'inbound report failed');
          callback(new SmtpReply(451, '4.3.0 Try again later'));
        },
      );
    },
  });
  server.on('error', (err) => log.warn({ err }, 'inbound SMTP error'));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.server.address();
  running.port = typeof address === 'object' && address ? address.port : opts.port;
  running.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return running;
}
