// `mailsvc inbound`: the SMTP server of the bounce domains (smtp-server). It takes DSNs, delivery
// notices, ARF complaints and whatever else arrives, reads each (parse-report.ts) and applies it
// (domain/feedback). Mail to a VERP address whose tag does not verify is refused at RCPT: a
// guessed or forged address names no message; a DSN or plain bounce that did not come to a
// verified VERP address changes nothing. ARF reports, sent to a feedback-loop address, are
// matched by the returned original's signed Message-ID or Return-Path, as RFC 5965 reports must
// be; an id without a valid tag changes nothing (domain/feedback/signed-references.ts). Input is
// capped at 1 MiB. A report that cannot be recorded because the database is away is answered
// 451, so the sending MTA tries again later.
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { isDatabaseUnavailable, isTransientDatabaseError } from '../db/errors.js';
import { isVerifiedSendingDomain } from '../db/repositories/feedback.js';
import type { Deps } from '../domain/deps.js';
import { applyFeedbackReport, type ReportOutcome } from '../domain/feedback/apply-report.js';
import { messageIdFromHeader, messageIdFromVerp } from '../domain/feedback/signed-references.js';
import type { FeedbackReport, MessageRef } from '../domain/feedback/types.js';
import { parseReport } from './parse-report.js';

/** Largest message read; a report is a few KB, and the original inside it is capped by its MTA. */
export const INBOUND_MAX_BYTES = 1024 * 1024;
const MAX_RECIPIENTS = 20;
/**
 * Refused recipients a connection may name before it is closed with 421. This is the port an MX
 * points at, open to anyone: a session pipelining 10,000 refused RCPTs must cost 20 answers, not
 * 10,000 (RSET does not reset the count).
 */
export const MAX_REFUSED_RECIPIENTS = 20;
/** How long a bounce domain's answer (ours or not) is kept: a domain verified since is seen within it. */
const BOUNCE_DOMAIN_TTL_MS = 60_000;
const BOUNCE_DOMAIN_CACHE_MAX = 10_000;

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

/** The message the returned original names by a reference we signed: its Message-ID, its Return-Path. */
function signedReferenceIn(deps: Pick<Deps, 'keys'>, ref: MessageRef): string | undefined {
  const byHeader = ref.messageIdHeader ? messageIdFromHeader(deps.keys.verp, ref.messageIdHeader) : null;
  return byHeader ?? ((ref.returnPath && messageIdFromVerp(deps.keys.verp, ref.returnPath)) || undefined);
}

type InboundDeps = Pick<Deps, 'db' | 'clock' | 'log' | 'keys' | 'config'>;
type Log = Deps['log'];

/**
 * Whether an address is on a domain of ours: the service's bounce domain, or bounces.<a verified
 * sending domain>. Answers per domain are kept a minute (a lookup in flight is shared): recipients
 * of one domain cost one query a minute, not one each.
 */
function bounceDomainCheck(deps: InboundDeps): (address: string) => Promise<boolean> {
  const bounceDomain = deps.config.MAILSVC_BOUNCE_DOMAIN.toLowerCase();
  const verified = new Map<string, { isOurs: Promise<boolean>; until: number }>();
  return async (address) => {
    const domain = address.slice(address.lastIndexOf('@') + 1).toLowerCase();
    if (domain === bounceDomain) return true;
    if (!domain.startsWith('bounces.')) return false;
    const now = deps.clock.now().getTime();
    const hit = verified.get(domain);
    if (hit && hit.until > now) return hit.isOurs;
    if (verified.size >= BOUNCE_DOMAIN_CACHE_MAX) verified.clear();
    const isOurs = isVerifiedSendingDomain(deps.db, domain.slice('bounces.'.length));
    verified.set(domain, { isOurs, until: now + BOUNCE_DOMAIN_TTL_MS });
    // A failed lookup is not an answer: the next recipient asks again.
    isOurs.catch(() => verified.delete(domain));
    return isOurs;
  };
}

/** A refusal of a recipient, or, past MAX_REFUSED_RECIPIENTS of them in a session, the end of the connection. */
function recipientRefusals(): (session: SMTPServerSession, code: number, message: string) => SmtpReply {
  const refusals = new WeakMap<SMTPServerSession, number>();
  return (session, code, message) => {
    const count = (refusals.get(session) ?? 0) + 1;
    refusals.set(session, count);
    return count > MAX_REFUSED_RECIPIENTS
      ? new SmtpReply(421, '4.7.0 Too many refused recipients, closing connection')
      : new SmtpReply(code, message);
  };
}

/** Reads a message and applies the report it holds; an SmtpReply when it is refused. */
async function receiveReport(
  deps: InboundDeps,
  log: Log,
  stream: SMTPServerDataStream,
  session: SMTPServerSession,
): Promise<{ report: FeedbackReport; outcomes: ReportOutcome[] }> {
  const raw = await readCapped(stream);
  if (!raw) throw new SmtpReply(552, '5.3.4 Message too big for a report (1 MiB)');
  let report: FeedbackReport;
  try {
    report = parseReport(raw);
  } catch (err) {
    // Not something a retry can fix: refused for good (a bounce's sender discards it).
    log.warn({ err }, 'inbound mail could not be read');
    throw new SmtpReply(554, '5.6.0 Message could not be read');
  }
  const verp = verpMessageId(deps, session);
  // Unauthenticated mail names a message only by a reference we signed. A bounce goes to
  // the envelope sender, our VERP address, and is matched by it alone: the returned
  // original is what its recipient could write. Only a complaint (ARF, sent to a
  // feedback-loop address) may name it by the original's signed Message-ID or Return-Path.
  const signed = verp ?? (report.type === 'arf' ? signedReferenceIn(deps, report.ref) : undefined);
  report.ref = signed ? { signedMessageId: signed } : {};
  const outcomes =
    report.items.length > 0 ? await applyFeedbackReport(deps, report, { source: 'inbound', raw }) : [];
  log.info(
    { type: report.type, feedbackType: report.feedbackType, outcomes: outcomes.map((o) => o.result) },
    'inbound mail',
  );
  return { report, outcomes };
}

/** The answer to a message whose report failed: 451 while the database is away, else refused. */
function failedReportReply(err: unknown, log: Log): SmtpReply {
  if (err instanceof SmtpReply) return err;
  if (isDatabaseUnavailable(err) || isTransientDatabaseError(err)) {
    log.warn({ err }, 'database unavailable or busy: report deferred (451)');
    return new SmtpReply(451, '4.3.0 Try again later');
  }
  // Anything else would fail the same way on every retry: refused, and logged.
  log.error({ err }, 'inbound report failed');
  return new SmtpReply(554, '5.3.0 Report could not be recorded');
}

export async function startInbound(
  deps: InboundDeps,
  opts: { port: number; host: string },
): Promise<RunningInbound> {
  const log = deps.log.child({ component: 'inbound' });
  const isOurDomain = bounceDomainCheck(deps);
  const refuse = recipientRefusals();
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
        return callback(refuse(session, 452, '4.5.3 Too many recipients'));
      }
      // Anything addressed like a VERP bounce address must carry a tag we minted; one that does is
      // ours on whatever domain (a domain's return path may have changed since the mail left).
      if (/^bounces\+/i.test(address.address)) {
        return messageIdFromVerp(deps.keys.verp, address.address)
          ? callback()
          : callback(refuse(session, 550, '5.1.1 No such bounce address'));
      }
      isOurDomain(address.address).then(
        (ours) =>
          callback(ours ? undefined : refuse(session, 550, '5.7.1 Relay access denied: not a bounce domain')),
        (err: unknown) => {
          log.warn({ err }, 'inbound RCPT check failed');
          callback(new SmtpReply(451, '4.3.0 Try again later'));
        },
      );
    },
    onData(stream, session, callback) {
      void (async () => {
        const received = await receiveReport(deps, log, stream, session);
        running.onReport?.(received);
      })().then(
        () => callback(),
        (err: unknown) => callback(failedReportReply(err, log)),
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
