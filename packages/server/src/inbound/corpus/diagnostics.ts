// The diagnostics of the bounce corpus: what receivers answer, each as the receiving system words
// it (the system named in `seen`), with the reading mailsvc must give it. Written for this
// project from the systems' documented replies and bounce templates; see README.md.
import type { FailureReason } from '@mailsvc/contract/message-errors';

export interface CorpusDiagnostic {
  /** A short name for the test's title. */
  id: string;
  /** The reply or the words, as the reporting system quotes them. */
  text: string;
  /** The status a DSN's Status field would carry (generic ones included: receivers do that). */
  status?: string;
  hard: boolean;
  reason: FailureReason;
  /** The receiving system whose wording this is. */
  seen: string;
}

export const DIAGNOSTICS: readonly CorpusDiagnostic[] = [
  // hard: the mailbox or its domain is missing
  {
    id: 'postfix-virtual-unknown',
    text: '550 5.1.1 <{rcpt}>: Recipient address rejected: User unknown in virtual mailbox table',
    status: '5.1.1',
    hard: true,
    reason: 'user_unknown',
    seen: 'Postfix',
  },
  {
    id: 'gmail-does-not-exist',
    text: "550-5.1.1 The email account that you tried to reach does not exist. Please try double-checking the recipient's email address for typos",
    status: '5.1.1',
    hard: true,
    reason: 'user_unknown',
    seen: 'Gmail',
  },
  {
    id: 'courier-generic-status',
    text: '550 5.1.1 <{rcpt}>... User Unknown',
    status: '5.0.0',
    hard: true,
    reason: 'user_unknown',
    seen: 'Courier',
  },
  {
    id: 'exchange-online-access-denied',
    text: '550 5.4.1 Recipient address rejected: Access denied. AS(201806281)',
    status: '5.4.1',
    hard: true,
    reason: 'user_unknown',
    seen: 'Exchange Online',
  },
  {
    id: 'exchange-recipient-not-found',
    text: '550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup',
    status: '5.1.10',
    hard: true,
    reason: 'user_unknown',
    seen: 'Exchange Online',
  },
  {
    id: 'gmx-mailbox-unavailable',
    text: '550 Requested action not taken: mailbox unavailable',
    hard: true,
    reason: 'user_unknown',
    seen: 'GMX, web.de',
  },
  {
    id: 'yahoo-no-account',
    text: "554 delivery error: dd This user doesn't have a yahoo.com account ({rcpt}) [0] - mta1234.mail.bf1.yahoo.com",
    status: '5.0.0',
    hard: true,
    reason: 'user_unknown',
    seen: 'Yahoo',
  },
  {
    id: 'aol-mailbox-not-found',
    text: '550 MAILBOX NOT FOUND',
    hard: true,
    reason: 'user_unknown',
    seen: 'AOL (legacy)',
  },
  {
    id: 'qmail-no-mailbox',
    text: 'Sorry, no mailbox here by that name. (#5.1.1)',
    status: '5.1.1',
    hard: true,
    reason: 'user_unknown',
    seen: 'qmail',
  },
  {
    id: 'verizon-illegal-alias',
    text: '550 5.1.1 unknown or illegal alias: {rcpt}',
    status: '5.1.1',
    hard: true,
    reason: 'user_unknown',
    seen: 'Verizon',
  },
  {
    id: 'generic-no-such-user',
    text: '550 No such user here',
    status: '5.0.0',
    hard: true,
    reason: 'user_unknown',
    seen: 'Sendmail, MDaemon',
  },
  {
    id: 'invalid-recipient',
    text: '550 5.5.0 Invalid recipient <{rcpt}>',
    status: '5.5.0',
    hard: true,
    reason: 'user_unknown',
    seen: 'Zimbra, Kerio',
  },
  {
    id: 'gmail-disabled',
    text: '550-5.2.1 The email account that you tried to reach is disabled.',
    status: '5.2.1',
    hard: true,
    reason: 'mailbox_disabled',
    seen: 'Gmail',
  },
  {
    id: 'postfix-host-not-found',
    text: 'Host or domain name not found. Name service error for name=nonexistent.invalid type=AAAA: Host not found',
    status: '5.4.4',
    hard: true,
    reason: 'host_unknown',
    seen: 'Postfix',
  },
  {
    id: 'gmail-domain-not-found',
    text: "553 5.1.2 We weren't able to find the recipient domain. Please check for any spelling errors",
    status: '5.1.2',
    hard: true,
    reason: 'host_unknown',
    seen: 'Gmail',
  },
  {
    id: 'null-mx',
    text: '556 5.1.10 Recipient address has null MX',
    status: '5.1.10',
    hard: true,
    reason: 'not_accepting_mail',
    seen: 'Postfix (RFC 7505)',
  },
  // soft: the mailbox exists; the moment or the rate is the problem
  {
    id: 'gmail-over-quota',
    text: '552-5.2.2 The email account that you tried to reach is over quota.',
    status: '5.2.2',
    hard: false,
    reason: 'mailbox_full',
    seen: 'Gmail',
  },
  {
    id: 'mailbox-code-over-quota',
    text: '552 5.2.2 Over quota',
    status: '5.1.1',
    hard: false,
    reason: 'mailbox_full',
    seen: 'Dovecot LMTP behind a gateway',
  },
  {
    id: 'rate-too-many',
    text: '550 5.1.1 <{rcpt}> - 203.0.113.222 has sent to too many recipients this hour',
    status: '5.1.1',
    hard: false,
    reason: 'rate_limited',
    seen: 'a hosting provider',
  },
  {
    id: 'greylisted',
    text: '450 4.2.0 <{rcpt}>: Recipient address rejected: Greylisted, see https://postgrey.example/',
    status: '4.2.0',
    hard: false,
    reason: 'rate_limited',
    seen: 'postgrey',
  },
  {
    id: 'procmail-local',
    text: 'procmail: Couldn\'t create "/var/spool/mail/jane"',
    status: '5.1.1',
    hard: false,
    reason: 'system_error',
    seen: 'Sendmail with procmail',
  },
  // block: refused for good, not because of the address
  {
    id: 'spamhaus',
    text: '554 5.7.1 Service unavailable; Client host [198.51.100.7] blocked using zen.spamhaus.org',
    status: '5.7.1',
    hard: false,
    reason: 'spam_blocked',
    seen: 'Postfix with a DNSBL',
  },
  {
    id: 'mailbox-code-spamhaus',
    text: '550 5.1.1 Service unavailable; client host [198.51.100.7] listed at Spamhaus',
    status: '5.1.1',
    hard: false,
    reason: 'spam_blocked',
    seen: 'a misconfigured gateway',
  },
  {
    id: 'o365-banned-ip',
    text: '550 5.7.606 Access denied, banned sending IP [198.51.100.7]',
    status: '5.7.606',
    hard: false,
    reason: 'policy_blocked',
    seen: 'Exchange Online',
  },
  {
    id: 'recipient-preferences',
    text: '550 5.1.1 RCP-P2 http://postmaster.example/errors.html#RCP-P2 Refused due to recipient preferences',
    status: '5.1.1',
    hard: false,
    reason: 'policy_blocked',
    seen: 'a consumer mailbox provider',
  },
  {
    id: 'gmail-auth',
    text: '550-5.7.26 This mail is unauthenticated, which poses a security risk to the sender and Gmail users',
    status: '5.7.26',
    hard: false,
    reason: 'auth_failed',
    seen: 'Gmail',
  },
  {
    id: 'too-large',
    text: '552 5.3.4 Message size exceeds fixed maximum message size',
    status: '5.3.4',
    hard: false,
    reason: 'message_too_large',
    seen: 'Postfix',
  },
  {
    id: 'relay-denied',
    text: '550 5.7.1 Unable to relay for {rcpt}',
    status: '5.7.1',
    hard: false,
    reason: 'relay_denied',
    seen: 'Exchange',
  },
  {
    id: 'content',
    text: '554 5.7.1 Message rejected because of unacceptable content',
    status: '5.7.1',
    hard: false,
    reason: 'content_rejected',
    seen: 'a content filter',
  },
];
