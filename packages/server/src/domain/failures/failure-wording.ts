// What receivers write when they refuse mail, as data: each entry is a reason of the failure
// vocabulary (failure-reasons.ts), the wording that signals it, and a sample it was taken from.
// classify-failure.ts reads a diagnostic against these lists, sender-side and transient signals
// first: a refusal that blames the sender, the content or the moment is never counted against the
// recipient, whatever code it carries; a "no such mailbox" wording decides under no code, a
// generic one (5.0.0, 5.5.0, 5.4.x) or an address code, never over a code naming another cause. Every pattern runs in linear time (no nested quantifiers);
// classify-failure.test.ts checks each sample reads as its entry says.
import type { FailureReason } from './failure-reasons.js';

export interface Wording {
  reason: FailureReason;
  pattern: RegExp;
  /** A diagnostic this entry was written from (a reply or DSN text seen in the wild). */
  sample: string;
}

/**
 * Signals that the refusal is about the sender, the content, the rate or the moment: never a
 * hard bounce. In order: the first that matches gives the reason.
 */
export const NOT_THE_RECIPIENT: readonly Wording[] = [
  {
    reason: 'mailbox_full',
    pattern:
      /\b(over ?quota|quota exceeded|exceeded (?:the )?(?:storage|quota)|mailbox (?:is )?full|insufficient (?:system )?storage|mail ?box size limit|mailbox exceeds (?:the )?allowed size|disk quota)\b/i,
    sample: '552 5.2.2 Over quota',
  },
  {
    reason: 'rate_limited',
    pattern:
      /\b(rate limit(?:ed)?|too many (?:recipients|messages|connections|emails)|sending rate|has sent to too many|throttl(?:ed|ing)|greylist(?:ed|ing)?|graylist(?:ed|ing)?|try (?:again|later)|please retry)\b/i,
    sample: '550 5.1.1 <user@example.com> - 203.0.113.222 has sent to too many recipients this hour',
  },
  {
    reason: 'spam_blocked',
    pattern:
      /\b(spamhaus|spamcop|barracuda|sorbs|black ?list(?:ed)?|block ?list(?:ed)?|dnsbl|rbl|reputation|poor sending|spam|junk mail)\b/i,
    sample: '550 5.7.1 Service unavailable; client host [203.0.113.9] blocked using Spamhaus',
  },
  {
    reason: 'policy_blocked',
    pattern:
      /\bsender (?:address |domain )?(?:rejected|not found|unknown|invalid|does not exist|verify failed)\b/i,
    sample: '550 5.1.8 sender domain not found',
  },
  {
    reason: 'auth_failed',
    pattern:
      /\b(dmarc|spf (?:check )?fail(?:ed|ure)?|dkim (?:check )?fail(?:ed|ure)?|unauthenticated|authentication (?:required|failed))\b/i,
    sample: '550 5.7.26 This mail is unauthenticated, which poses a security risk to the sender',
  },
  {
    reason: 'content_rejected',
    pattern:
      /\b(virus|malware|content (?:rejected|filter)|unacceptable content|message content|attachment (?:type )?(?:not allowed|rejected))\b/i,
    sample: '554 5.7.1 Message rejected because of unacceptable content',
  },
  {
    reason: 'policy_blocked',
    pattern:
      /\b(policy|blocked|banned|recipient preferences|suppression list|denied by|not authori[sz]ed|prohibited|refused due to)\b/i,
    sample: '550 5.1.1 RCP-P2 Refused due to recipient preferences',
  },
  {
    reason: 'relay_denied',
    pattern:
      /\b(relay(?:ing)? (?:access )?(?:denied|not permitted|prohibited)|unable to relay|not permitted to relay|relay not allowed)\b/i,
    sample: '550 5.7.1 Unable to relay for user@example.net',
  },
  {
    reason: 'message_too_large',
    pattern:
      /\b(message (?:size )?(?:is )?too (?:big|large)|size exceeds|exceeds (?:the )?(?:maximum )?(?:message )?size|size limit exceeded)\b/i,
    sample: '552 5.3.4 Message size exceeds fixed maximum message size',
  },
  {
    reason: 'system_error',
    pattern:
      /\b(couldn't create|could not create|i\/o error|local delivery failed|temporar(?:y|ily)|internal (?:server )?error|resources)\b/i,
    sample: 'procmail: Couldn\'t create "/var/spool/mail/user"',
  },
];

/** Signals that the mailbox or its domain does not exist (or takes no mail): hard under a generic code. */
export const MAILBOX_MISSING: readonly Wording[] = [
  {
    reason: 'mailbox_disabled',
    pattern:
      /\b(account (?:is |has been )?disabled|(?:is|been) disabled(?! for sending)|mailbox (?:is )?disabled|account (?:is )?(?:inactive|deactivated|suspended)|mailbox (?:is )?inactive|no longer (?:active|in use|accepting))\b/i,
    sample: '550 5.2.1 The email account that you tried to reach is disabled',
  },
  {
    reason: 'host_unknown',
    pattern:
      /\b(host (?:or domain name )?not found|domain (?:name )?not found|no such (?:domain|host)|unrouteable (?:mail )?domain|unroutable address|domain does not exist|name service error|point to non-existent hosts|dns domain \S{1,253} does not exist|no mx (?:record|or a record))\b/i,
    sample:
      'Host or domain name not found. Name service error for name=example.invalid type=AAAA: Host not found',
  },
  {
    reason: 'not_accepting_mail',
    pattern: /\b(does not accept (?:e-?)?mail|null mx|accepts no mail|indicated no smtp service)\b/i,
    sample: '550 Host does not accept mail',
  },
  {
    reason: 'user_unknown',
    pattern:
      /\b(user unknown|unknown user|no such (?:user|mailbox|recipient|address|account)|user (?:does not exist|doesn't exist|not found)|mailbox (?:unavailable|not found|does not exist|doesn't exist)|recipient address rejected: access denied|unknown (?:recipient|mailbox|address|local part)|invalid (?:recipient|mailbox)(?! count)|account does not exist|not a valid (?:mailbox|recipient)|bad destination mailbox|addressee unknown|no mailbox here|recipient not found|undeliverable address|unrouteable address|not on post office|addresses? (?:were|was|is) unknown|you tried to reach does not exist|(?:does not|doesn't) have an? [\w.-]{1,64} account|illegal alias|not listed in (?:the )?(?:domino )?directory|not listed in public name (?:&|and) address book|could not be found in the directory|account does not exist at the organization)\b/i,
    sample: '550 5.1.1 <user@example.com>... User Unknown',
  },
];
